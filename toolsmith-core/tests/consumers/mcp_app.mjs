// Runs a toolsmith MCP App (`toolsmith::ui::app`) in real headless Chromium inside a host page
// that speaks the MCP Apps protocol over postMessage, as a host such as an MCP client's chat
// window does: it answers `ui/initialize`, sends the model's arguments
// (`ui/notifications/tool-input`) once the view says `ui/notifications/initialized`, and answers
// the view's `tools/call` with a result.
//
// Usage: node mcp_app.mjs CASE.json
// CASE.json: {"html": "<!doctype html>...", "input": {...model's arguments...},
//             "edit": {"name": "value the person types instead"}, "result": {CallToolResult},
//             "forged": [messages]}
// With "forged", once the view shows the model's arguments, a sibling frame of the view (another
// sandboxed iframe of the host page, not the host) posts each forged message to the view; each
// carries `"forged": true`, which a probe the view's page gets after the app's own listener counts,
// so the app has handled (or ignored) every one of them before the view is read again.
// Prints one JSON object: version; log (every message the host received, in order); filled (the
// view's arguments after tool-input, as its script collects them); forgedSeen (how many forged
// messages reached the view), afterForged ({filled, shown}: the view's arguments and <output>
// text after them); calls (the `tools/call` params the host received after the person pressed
// the button); shown (the view's <output> text); images and links (the src and href of the <img>
// and <a> elements in it); error (whether it is marked as an error).
import fs from 'node:fs';
import { withPage } from './browser.mjs';

const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';

const result = await withPage(executable, async (page, version) => {
  await page.setContent('<!doctype html><meta charset="utf-8"><title>host</title><iframe id="view" sandbox="allow-scripts allow-forms" style="width:800px;height:900px"></iframe>');
  await page.evaluate(({ html, input, result }) => {
    window.__log = [];
    window.__calls = [];
    const frame = document.getElementById('view');
    window.addEventListener('message', (event) => {
      if (event.source !== frame.contentWindow) return;
      const msg = event.data;
      window.__log.push(msg);
      const reply = (body) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: msg.id, ...body }, '*');
      if (msg.method === 'ui/initialize') {
        reply({ result: { protocolVersion: '2026-01-26', hostCapabilities: { serverTools: {} }, hostInfo: { name: 'test host', version: '1' }, hostContext: { theme: 'light' } } });
      } else if (msg.method === 'ui/notifications/initialized') {
        frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: input } }, '*');
      } else if (msg.method === 'tools/call') {
        window.__calls.push(msg.params);
        reply({ result });
      }
    });
    frame.srcdoc = html;
  }, input);
  const view = page.frameLocator('#view');
  await page.waitForFunction(() => window.__log.some((m) => m.method === 'ui/notifications/initialized'), null, { timeout: 10000 });
  // The tool-input notification is handled once posted; wait until the form shows it.
  const target = page.frames().find((f) => f !== page.mainFrame());
  await target.waitForFunction((want) => {
    const form = document.querySelector('form[data-toolsmith-tool]');
    return JSON.stringify(window.toolsmithCollect(form)) === JSON.stringify(want);
  }, input.input, { timeout: 10000 }).catch(() => {});
  const filled = await target.evaluate(() => window.toolsmithCollect(document.querySelector('form[data-toolsmith-tool]')));
  let forgedSeen = null;
  let afterForged = null;
  if (Array.isArray(input.forged)) {
    await target.evaluate(() => {
      window.__forgedSeen = 0;
      window.addEventListener('message', (event) => {
        if (event.data && event.data.forged === true) window.__forgedSeen += 1;
      });
    });
    await page.evaluate((forged) => {
      const sibling = document.createElement('iframe');
      sibling.id = 'sibling';
      sibling.setAttribute('sandbox', 'allow-scripts');
      // The view is the host page's first frame; the sibling reaches it as any frame can.
      sibling.srcdoc = '<!doctype html><script>const view = parent.frames[0];'
        + 'for (const m of ' + JSON.stringify(forged).replace(/</g, '\\u003c') + ') view.postMessage(m, "*");</' + 'script>';
      document.body.append(sibling);
    }, input.forged);
    await target.waitForFunction((n) => window.__forgedSeen >= n, input.forged.length, { timeout: 10000 }).catch(() => {});
    forgedSeen = await target.evaluate(() => window.__forgedSeen);
    afterForged = await target.evaluate(() => ({
      filled: window.toolsmithCollect(document.querySelector('form[data-toolsmith-tool]')),
      shown: document.querySelector('output').textContent,
    }));
  }
  for (const [name, value] of Object.entries(input.edit || {})) {
    const field = view.locator(`[name="${name}"]`);
    await field.fill('');
    await field.pressSequentially(String(value));
  }
  await view.locator('button[type=submit]').click();
  await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 }).catch(() => {});
  await target.waitForFunction(() => document.querySelector('output').textContent !== '', null, { timeout: 10000 }).catch(() => {});
  const shown = await view.locator('output').textContent();
  const images = await target.evaluate(() => [...document.querySelectorAll('output img')].map((i) => i.getAttribute('src')));
  const links = await target.evaluate(() => [...document.querySelectorAll('output a')].map((a) => a.getAttribute('href')));
  const error = await target.evaluate(() => document.querySelector('output').classList.contains('toolsmith-error'));
  const log = await page.evaluate(() => window.__log);
  const calls = await page.evaluate(() => window.__calls);
  return { version, log, filled, forgedSeen, afterForged, calls, shown, images, links, error };
});
console.log(JSON.stringify(result));
