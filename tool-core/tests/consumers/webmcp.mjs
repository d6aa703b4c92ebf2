// Registers a WebMCP export in real headless Chromium and reads it back.
//
// Usage: node webmcp.mjs EXPORT.json
// EXPORT.json is a `webmcp` export (a list of registerTool dictionaries without `execute`).
// Serves a blank page from http://127.0.0.1:PORT/ (document.modelContext needs a secure context),
// calls document.modelContext.registerTool for each tool with a trivial execute, then getTools(),
// and prints one JSON object: {"api", "registered": [names], "errors": [...], "tools": [...]}.
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const tools = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><meta charset="utf-8"><title>toolsmith webmcp</title><p>ok</p>');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolsmith-webmcp-'));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--enable-features=WebMCPTesting', '--headless', '--no-sandbox', '--disable-gpu',
      '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`http://127.0.0.1:${port}/`);
  const result = await page.evaluate(async (tools) => {
    const mc = document.modelContext;
    if (!mc) {
      return { api: null, secure: window.isSecureContext, registered: [], errors: ['document.modelContext is missing'], tools: [] };
    }
    const registered = [];
    const errors = [];
    for (const tool of tools) {
      try {
        await mc.registerTool({ ...tool, execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }) });
        registered.push(tool.name);
      } catch (e) {
        errors.push(`${tool.name}: ${e && e.name}: ${e && e.message}`);
      }
    }
    const got = await mc.getTools();
    const describe = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
    const plain = Array.from(got, (t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
      inputSchemaType: describe(t.inputSchema),
      annotations: t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : t.annotations,
      origin: t.origin === undefined ? undefined : String(t.origin),
      keys: Object.keys(t),
    }));
    return { api: 'document.modelContext', secure: window.isSecureContext, registered, errors, tools: plain };
  }, tools);
  console.log(JSON.stringify(result));
} finally {
  if (context) await context.close();
  server.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
