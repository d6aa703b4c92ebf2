// Probes whether a chromium can run WebMCP: launches it as the WebMCP test does and checks that
// document.modelContext exists with registerTool and getTools.
//
// Usage: node webmcp_probe.mjs CHROMIUM
// Prints one JSON line {"ok", "version", "secure", "api": [methods], "error"?}; exit 0 when ok.
import { withPage } from './browser.mjs';

const executable = process.argv[2] || '/usr/bin/chromium';
let result;
try {
  result = await withPage(executable, async (page, version) => {
    const seen = await page.evaluate(() => {
      const mc = document.modelContext;
      const api = mc ? ['registerTool', 'getTools'].filter((m) => typeof mc[m] === 'function') : [];
      return { secure: window.isSecureContext, present: !!mc, api };
    });
    return {
      ok: seen.present && seen.api.length === 2,
      version,
      secure: seen.secure,
      api: seen.api,
      ...(seen.present ? {} : { error: 'document.modelContext is missing' }),
    };
  });
} catch (e) {
  result = { ok: false, version: null, error: `launch failed: ${String(e && e.message).split('\n')[0]}` };
}
console.log(JSON.stringify(result));
process.exit(result.ok ? 0 : 1);
