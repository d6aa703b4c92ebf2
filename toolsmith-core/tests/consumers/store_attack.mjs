// Plays a hostile page against the store example's page (served by the test on 127.0.0.1) in
// real headless Chromium, then uses the page as its own person does.
//
// Usage: node store_attack.mjs STORE_URL
// Chromium resolves evil.example and rebind.example to 127.0.0.1 (--host-resolver-rules), so:
// - the attacker's page, served here at http://evil.example:PORT/ (another site), posts to the
//   store's endpoint with a script-free no-cors fetch, then auto-submits a hidden form
//   (form-encoded, `add_to_cart` with 2 × TNT-2P each) into a hidden frame;
// - a DNS-rebinding page opens the store at http://rebind.example:STOREPORT/ (to the browser,
//   the store's own origin under the attacker's name), then posts `add_to_cart` as JSON to it;
// - last, the store's own page at STORE_URL submits its add-to-cart form natively (no script:
//   `form.submit()`), 1 × LMP-HEAD, as a person's browser without JavaScript does.
// Prints one JSON object: version; crossSite (each request the browser sent to the store's
// endpoint from the attacker's page: kind, status, and the Origin and Sec-Fetch-Site it
// carried, as far as Chromium reports them, else null); rebindPage ({status, body} of the rebound page load); rebindPost ({status, body} of
// the rebound page's post); own ({status, body} of the store page's own native submission).
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser; every
// name resolves to 127.0.0.1.
import http from 'node:http';
import { withPage } from './browser.mjs';

const [storeUrl] = process.argv.slice(2);
const store = new URL(storeUrl);
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';
const endpoint = new URL('/call?tool=add_to_cart', store).href;

const attackPage = `<!doctype html>
<html lang="en"><meta charset="utf-8"><title>Win a tent</title>
<p>Congratulations!</p>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="post" action="${endpoint}" target="sink" style="display:none">
  <input type="hidden" name="sku" value="TNT-2P">
  <input type="hidden" name="quantity" value="2">
</form>
<script>
window.__attack = (async () => {
  // No preflight: a form-encoded no-cors post is a "simple" request.
  try {
    await fetch(${JSON.stringify(endpoint)}, { method: 'POST', mode: 'no-cors', body: new URLSearchParams({ sku: 'TNT-2P', quantity: '2' }) });
  } catch (e) { /* a refusal is not visible to the page either way */ }
  await new Promise((resolve) => {
    document.querySelector('iframe[name=sink]').addEventListener('load', resolve, { once: true });
    document.getElementById('f').submit();
  });
  return 'done';
})();
</script>
</html>
`;

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(attackPage);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const evilUrl = `http://evil.example:${server.address().port}/`;
const rebindUrl = `http://rebind.example:${store.port}/`;
const within = (ms, promise, what) => Promise.race([
  promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
]);

let result;
try {
  result = await withPage(executable, async (page, version) => {
    // Each request the attacker's page sends to the endpoint, as the browser saw it; the frame's
    // network events may come after the page's own promise settles, so wait for both of them.
    const crossSite = [];
    let bothSeen;
    const both = new Promise((resolve) => { bothSeen = resolve; });
    page.on('response', async (response) => {
      if (!response.url().startsWith(endpoint)) return;
      const headers = await response.request().allHeaders();
      crossSite.push({
        kind: response.request().resourceType(),
        status: response.status(),
        origin: headers.origin ?? null,
        secFetchSite: headers['sec-fetch-site'] ?? null,
      });
      if (crossSite.length === 2) bothSeen();
    });
    await page.goto(evilUrl);
    await within(20000, page.evaluate(() => window.__attack), 'the attacker page');
    await within(20000, both, 'the attacker page\'s two requests');
    page.removeAllListeners('response');

    const rebound = await page.goto(rebindUrl);
    const rebindPage = { status: rebound.status(), body: await rebound.text() };
    const rebindPost = await within(20000, page.evaluate(async () => {
      const response = await fetch('/call', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'add_to_cart', arguments: { sku: 'TNT-2P', quantity: 2 } }),
      });
      return { status: response.status, body: await response.text() };
    }), 'the rebound page');

    await page.goto(storeUrl);
    const form = page.locator('form[data-toolsmith-tool="add_to_cart"]');
    await form.locator('[name=sku]').fill('LMP-HEAD');
    await form.locator('[name=quantity]').fill('1');
    const [answer] = await Promise.all([
      page.waitForNavigation({ timeout: 20000 }),
      form.evaluate((f) => f.submit()),
    ]);
    const own = { status: answer.status(), body: await answer.text() };
    return { version, crossSite, rebindPage, rebindPost, own };
  }, ['--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rebind.example 127.0.0.1']);
} finally {
  server.close();
}
console.log(JSON.stringify(result));
