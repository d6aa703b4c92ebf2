// Starts Debian's chromium (or the executable given) headless with WebMCP enabled, on a blank
// page served from http://127.0.0.1:PORT/ (document.modelContext needs a secure context), runs
// `fn(page)` and always cleans up. `extraArgs` are added to the launch flags (for example
// `--host-resolver-rules=...`, to give 127.0.0.1 other names). Never downloads a browser.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

/** The flags every launch uses: WebMCP on, nothing that reaches for the network. */
export const ARGS = [
  '--enable-features=WebMCPTesting', '--headless', '--no-sandbox', '--disable-gpu',
  '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export async function withPage(executablePath, fn, extraArgs = []) {
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
      executablePath, headless: true, args: [...ARGS, ...extraArgs], timeout: 60_000,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${port}/`);
    const version = context.browser()?.version() ?? null;
    return await fn(page, version);
  } finally {
    if (context) await context.close();
    server.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}
