// Opens the store example's page (served by the test on 127.0.0.1) in real headless Chromium
// with WebMCP, as an agent and as a person use it.
//
// Usage: node store_page.mjs URL [SCREENSHOT.png]
// Prints one JSON object: version; registered (getTools: name, description, inputSchema);
// agentSearch (the result of executeTool on search_products, whose form submits at once);
// agentCart (executeTool on add_to_cart: the browser fills the form in, and the person presses
// its button, since the tool writes); personCart (a person types into add_to_cart and presses
// the button); the text each form's <output> then shows. With SCREENSHOT, saves a picture of
// the page after the person's search.
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser.
import { withPage } from './browser.mjs';

const [url, screenshot] = process.argv.slice(2);
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';

const result = await withPage(executable, async (page, version) => {
  await page.goto(url);
  const registered = await page.evaluate(async () => Array.from(await document.modelContext.getTools(), (t) => ({
    name: t.name,
    description: t.description,
    inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
  })));
  const execute = (name, args) => page.evaluate(({ name, args }) => {
    window.__result = (async () => {
      const tools = await document.modelContext.getTools();
      const tool = Array.from(tools).find((t) => t.name === name);
      try { return String(await document.modelContext.executeTool(tool, args)); } catch (e) { return `error: ${e}`; }
    })();
  }, { name, args });
  const awaitResult = () => page.evaluate(() => Promise.race([
    window.__result, new Promise((r) => setTimeout(() => r('timeout'), 10000)),
  ]));
  const output = (name) => page.locator(`form[data-toolsmith-tool="${name}"] output`).textContent();

  await execute('search_products', { query: 'jacket', max_price: 3000 });
  const agentSearch = await awaitResult();

  await execute('add_to_cart', { sku: 'BOOT-TROLL', quantity: 1, size: '43' });
  const cart = page.locator('form[data-toolsmith-tool="add_to_cart"]');
  await page.waitForFunction(() => document.querySelector('form[data-toolsmith-tool="add_to_cart"] [name=sku]').value === 'BOOT-TROLL', null, { timeout: 5000 });
  await cart.locator('button[type=submit]').click();
  const agentCart = await awaitResult();

  await cart.evaluate((f) => { f.reset(); f.querySelector('output').textContent = ''; });
  await cart.locator('[name=sku]').pressSequentially('LMP-HEAD');
  await cart.locator('[name=quantity]').pressSequentially('2');
  await cart.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('form[data-toolsmith-tool="add_to_cart"] output').textContent !== '', null, { timeout: 10000 });
  const personCart = await output('add_to_cart');

  const search = page.locator('form[data-toolsmith-tool="search_products"]');
  await search.evaluate((f) => { f.reset(); f.querySelector('output').textContent = ''; });
  await search.locator('[name=query]').pressSequentially('tent');
  await search.locator('input[name=category][value=tents]').check();
  await search.locator('button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('form[data-toolsmith-tool="search_products"] output').textContent !== '', null, { timeout: 10000 });
  const personSearch = await output('search_products');
  if (screenshot) {
    await page.setViewportSize({ width: 900, height: 1400 });
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  return { version, registered, agentSearch, agentCart, personCart, personSearch };
});
console.log(JSON.stringify(result));
