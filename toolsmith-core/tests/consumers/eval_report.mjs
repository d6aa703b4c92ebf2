// Opens toolsmith-eval's HTML reports (files the test wrote) in headless Chromium, as a person
// opens a report from disk, and says what the browser made of each: its title, each chart's
// drawn size and rows, the elements a hostile text would have become, the requests the page
// made and the console's errors (a Content-Security-Policy violation is one); then saves a
// screenshot of the window and decodes it in the browser to count its colours.
//
// Usage: node eval_report.mjs PAGE.html SHOT.png [PAGE.html SHOT.png]...
// Prints one JSON object: version, pages: [{ file, title, text, charts: [{ kind, width,
// height, rows, bars }], elements: { script, img, iframe, link, object, embed }, requests,
// errors, shot: { width, height, colours, dominant } }].
// Uses Debian's /usr/bin/chromium (or $TOOLSMITH_CHROMIUM); never downloads a browser.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { withPage } from './browser.mjs';

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 2 !== 0) {
  console.error('usage: node eval_report.mjs PAGE.html SHOT.png [PAGE.html SHOT.png]...');
  process.exit(2);
}
const executable = process.env.TOOLSMITH_CHROMIUM || '/usr/bin/chromium';

/** The PNG at `file`, decoded by the browser: its size, distinct colours, most common share. */
async function decode(page, file) {
  const data = fs.readFileSync(file).toString('base64');
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const counts = new Map();
    for (let i = 0; i < pixels.length; i += 4) {
      const key = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const dominant = Math.max(...counts.values()) / (pixels.length / 4);
    return { width: canvas.width, height: canvas.height, colours: counts.size, dominant };
  }, data);
}

const result = await withPage(executable, async (page, version) => {
  await page.setViewportSize({ width: 1280, height: 1400 });
  const pages = [];
  for (let i = 0; i < args.length; i += 2) {
    const file = path.resolve(args[i]);
    const shot = path.resolve(args[i + 1]);
    const url = pathToFileURL(file).href;
    const requests = [];
    const errors = [];
    const onRequest = (r) => { if (r.url() !== url) requests.push(r.url()); };
    const onConsole = (m) => { if (m.type() === 'error') errors.push(m.text()); };
    const onError = (e) => errors.push(String(e));
    page.on('request', onRequest);
    page.on('console', onConsole);
    page.on('pageerror', onError);
    await page.goto(url, { waitUntil: 'load' });
    const seen = await page.evaluate(() => ({
      title: document.title,
      text: document.body.textContent,
      charts: Array.from(document.querySelectorAll('svg.chart'), (svg) => {
        const box = svg.getBoundingClientRect();
        const bars = Array.from(svg.querySelectorAll('rect.bar'), (r) => r.getBoundingClientRect().width);
        return {
          kind: svg.dataset.chart,
          width: box.width,
          height: box.height,
          rows: svg.querySelectorAll('g.row').length,
          bars,
        };
      }),
      elements: Object.fromEntries(['script', 'img', 'iframe', 'link', 'object', 'embed', 'style']
        .map((tag) => [tag, document.getElementsByTagName(tag).length])),
    }));
    await page.screenshot({ path: shot });
    page.off('request', onRequest);
    page.off('console', onConsole);
    page.off('pageerror', onError);
    pages.push({ file, ...seen, requests, errors, shot: null });
  }
  // The screenshots are decoded on a page of their own, not under the reports' policy.
  await page.goto('about:blank');
  for (let i = 0; i < pages.length; i += 1) {
    pages[i].shot = await decode(page, path.resolve(args[2 * i + 1]));
  }
  return { version, pages };
});
console.log(JSON.stringify(result));
