// Registers a WebMCP export in real headless Chromium and reads it back.
//
// Usage: node webmcp.mjs EXPORT.json
// EXPORT.json is a `webmcp` export (a list of registerTool dictionaries without `execute`).
// Calls document.modelContext.registerTool for each tool with a trivial execute, then getTools(),
// and prints one JSON object: {"api", "version", "secure", "registered": [names], "errors": [...],
// "tools": [...]}. Chromium 150 returns each tool's inputSchema from getTools() as JSON text, 156
// as an object: `inputSchema` is what the browser holds, parsed when it is text, and
// `inputSchemaType` says which form it came in.
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser.
import fs from 'node:fs';
import { withPage } from './browser.mjs';

const tools = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';
const result = await withPage(executable, async (page, version) => {
  const seen = await page.evaluate(async (tools) => {
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
    const parse = (v) => {
      if (typeof v !== 'string') return v;
      try { return JSON.parse(v); } catch (e) { return { unparsable: v }; }
    };
    const plain = Array.from(got, (t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: parse(t.inputSchema),
      inputSchemaType: describe(t.inputSchema),
      annotations: t.annotations ? JSON.parse(JSON.stringify(t.annotations)) : t.annotations,
      origin: t.origin === undefined ? undefined : String(t.origin),
      keys: Object.keys(t),
    }));
    return { api: 'document.modelContext', secure: window.isSecureContext, registered, errors, tools: plain };
  }, tools);
  return { version, ...seen };
});
console.log(JSON.stringify(result));
