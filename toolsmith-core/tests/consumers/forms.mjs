// Loads a page of toolsmith forms (`toolsmith::ui::page`) in real headless Chromium with WebMCP
// and reports what the browser and a person make of them.
//
// Usage: node forms.mjs CASES.json
// CASES.json: {"page": "<!doctype html>...", "tools": [{"name", "valid": [args...],
//   "invalid": [{"param", "args"}...]}]}
// Prints one JSON object:
//   version      the browser's version
//   registered   what document.modelContext.getTools() returns: name, description, inputSchema
//                (the schema the browser derives from each declarative form)
//   agent        per registered tool and valid case: the arguments the page's script sent after
//                document.modelContext.executeTool(tool, args) (a declarative form: filled in and
//                submitted; an imperative tool: its execute, which fills the form in and sends)
//   person       per tool and valid case: the arguments collected after filling the form as a
//                person does (typing, clicking radio buttons and checkboxes) and pressing its button
//   refused      per invalid case: whether the form let it be submitted, which controls the
//                browser marks invalid, and what the typed control holds (a `maxlength` stops
//                typing at the limit)
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser.
import fs from 'node:fs';
import { withPage } from './browser.mjs';

const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';

// Waits for the next `toolsmith:call` the page's script dispatches; answers it with the arguments.
const INSTALL = () => {
  window.__calls = [];
  document.addEventListener('toolsmith:call', (e) => {
    window.__calls.push({ tool: e.detail.tool, arguments: e.detail.arguments });
    e.detail.respond(JSON.stringify({ status: 'ok', arguments: e.detail.arguments }));
  });
};

async function personFills(page, tool, args) {
  const form = page.locator(`form[data-toolsmith-tool="${tool}"]`);
  const fields = JSON.parse(await form.getAttribute('data-toolsmith-params'));
  await form.evaluate((f) => f.reset());
  for (const field of fields) {
    if (!(field.name in args)) continue;
    const value = args[field.name];
    const named = form.locator(`[name="${field.name}"]`);
    const first = named.first();
    const tag = await first.evaluate((el) => el.tagName.toLowerCase());
    const type = await first.evaluate((el) => (el.type || '').toLowerCase());
    if (type === 'radio') {
      await form.locator(`input[type=radio][name="${field.name}"][value="${String(value)}"]`).check();
    } else if (type === 'checkbox' && field.type === 'boolean') {
      if (value) await first.check(); else await first.uncheck();
    } else if (type === 'checkbox') {
      for (const v of value) {
        await form.locator(`input[type=checkbox][name="${field.name}"][value="${String(v)}"]`).check();
      }
    } else if (tag === 'select') {
      await first.selectOption(String(value));
    } else if (field.lines) {
      await first.click();
      await first.pressSequentially(value.map(String).join('\n'));
    } else {
      await first.click();
      await first.pressSequentially(String(value));
    }
  }
}

const result = await withPage(executable, async (page, version) => {
  await page.setContent(cases.page);
  await page.evaluate(INSTALL);
  const registered = await page.evaluate(async () => {
    const tools = await document.modelContext.getTools();
    return Array.from(tools, (t) => ({
      name: t.name,
      description: t.description,
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
    }));
  });
  const names = new Set(registered.map((t) => t.name));
  const agent = [];
  const person = [];
  const refused = [];
  for (const tool of cases.tools) {
    for (const [i, args] of tool.valid.entries()) {
      if (names.has(tool.name)) {
        // The agent's call: executeTool fills the form in; a form without `toolautosubmit` waits
        // for the person to press its button, which the test does once the values are in.
        await page.evaluate(async ({ name, args }) => {
          const form = document.querySelector(`form[data-toolsmith-tool="${name}"]`);
          form.reset();
          const tools = await document.modelContext.getTools();
          const target = Array.from(tools).find((t) => t.name === name);
          // A declarative form answers with the page's text; an imperative tool with a result
          // whose text block holds it.
          const unwrap = (text) => {
            let v = typeof text === 'string' ? JSON.parse(text) : text;
            if (v && Array.isArray(v.content) && v.content[0] && typeof v.content[0].text === 'string') {
              v = JSON.parse(v.content[0].text);
            }
            return v;
          };
          window.__pending = document.modelContext.executeTool(target, args).then(
            unwrap,
            (e) => ({ error: String(e) }),
          );
        }, { name: tool.name, args });
        const form = page.locator(`form[data-toolsmith-tool="${tool.name}"]`);
        const auto = await form.getAttribute('toolautosubmit');
        const imperative = (await form.getAttribute('data-toolsmith-webmcp')) !== null;
        if (auto === null && !imperative) {
          await page.waitForFunction(({ name, args }) => {
            const form = document.querySelector(`form[data-toolsmith-tool="${name}"]`);
            return JSON.stringify(window.toolsmithCollect(form)) === JSON.stringify(args);
          }, { name: tool.name, args }, { timeout: 5000, polling: 50 }).catch(() => {});
          await page.locator(`form[data-toolsmith-tool="${tool.name}"] button[type=submit]`).click();
        }
        const got = await page.evaluate(() => Promise.race([
          window.__pending,
          new Promise((r) => setTimeout(() => r({ timeout: true }), 5000)),
        ]));
        agent.push({ tool: tool.name, case: i, got });
      }
      await personFills(page, tool.name, args);
      const before = await page.evaluate(() => window.__calls.length);
      await page.locator(`form[data-toolsmith-tool="${tool.name}"] button[type=submit]`).click();
      await page.waitForFunction((n) => window.__calls.length > n, before, { timeout: 5000 }).catch(() => {});
      const call = await page.evaluate((n) => window.__calls[n] ?? null, before);
      person.push({ tool: tool.name, case: i, got: call ? call.arguments : null });
    }
    for (const [i, bad] of tool.invalid.entries()) {
      await personFills(page, tool.name, bad.args);
      const state = await page.evaluate(({ name, param }) => {
        const form = document.querySelector(`form[data-toolsmith-tool="${name}"]`);
        const invalid = Array.from(form.elements)
          .filter((el) => el.willValidate && !el.checkValidity())
          .map((el) => el.name);
        const field = form.querySelector(`[name="${param}"]`);
        return {
          valid: form.checkValidity(),
          invalid: [...new Set(invalid)],
          holds: field && 'value' in field ? field.value : null,
          collected: window.toolsmithCollect(form),
        };
      }, { name: tool.name, param: bad.param });
      refused.push({ tool: tool.name, case: i, param: bad.param, ...state });
    }
  }
  return { version, registered, agent, person, refused };
});
console.log(JSON.stringify(result));
