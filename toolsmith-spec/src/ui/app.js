  const form = document.querySelector('form[data-toolsmith-tool]');
  const fields = JSON.parse(form.dataset.toolsmithParams);
  const tool = form.dataset.toolsmithTool;
  const host = window.parent;
  const pending = new Map();
  let nextId = 1;
  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      host.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }
  // A result's content blocks, built as DOM nodes (never markup): text as text, an image
  // (Base64 image data only) as an <img>, a resource link as a link when it is http(s) and as
  // text otherwise, an embedded text resource as text; with no block shown, the structured
  // content (or the whole result) as JSON.
  const IMAGE = /^image\/[a-z0-9.+-]+$/i;
  const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
  function block(c) {
    if (!c || typeof c !== 'object') return null;
    if (c.type === 'text' && typeof c.text === 'string') return document.createTextNode(c.text);
    if (c.type === 'image' && typeof c.mimeType === 'string' && IMAGE.test(c.mimeType)
        && typeof c.data === 'string' && BASE64.test(c.data)) {
      const img = document.createElement('img');
      img.src = 'data:' + c.mimeType + ';base64,' + c.data;
      img.alt = 'an image from ' + tool;
      img.style.maxWidth = '100%';
      img.style.display = 'block';
      return img;
    }
    if (c.type === 'resource_link' && typeof c.uri === 'string') {
      const label = c.title || c.name || c.uri;
      if (!/^https?:\/\//i.test(c.uri)) return document.createTextNode(label + ' (' + c.uri + ')');
      const a = document.createElement('a');
      a.href = c.uri;
      a.textContent = label;
      a.rel = 'noopener noreferrer';
      a.target = '_blank';
      return a;
    }
    if (c.type === 'resource' && c.resource && typeof c.resource.text === 'string') {
      return document.createTextNode(c.resource.text);
    }
    return null;
  }
  function show(result) {
    const out = form.querySelector('output.toolsmith-result');
    if (!out) return;
    out.replaceChildren();
    out.classList.toggle('toolsmith-error', !!(result && result.isError));
    const blocks = result && Array.isArray(result.content) ? result.content : [];
    for (const node of blocks.map(block).filter((n) => n)) {
      if (out.childNodes.length) out.append('\n');
      out.append(node);
    }
    if (!out.childNodes.length) {
      const data = result && result.structuredContent !== undefined ? result.structuredContent : result;
      out.textContent = JSON.stringify(data, null, 2);
    }
  }
  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const msg = event.data;
    if (!msg || msg.jsonrpc !== '2.0') return;
    if (msg.method === undefined && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(msg.error.message || 'the host refused the call'));
      else resolve(msg.result);
    } else if (msg.method === 'ui/notifications/tool-input' && msg.params) {
      form.reset();
      fill(form, fields, msg.params.arguments || {}, '');
    } else if (msg.method === 'ui/notifications/tool-result') {
      show(msg.params);
    } else if ((msg.method === 'ui/resource-teardown' || msg.method === 'ping') && msg.id !== undefined) {
      host.postMessage({ jsonrpc: '2.0', id: msg.id, result: {} }, '*');
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const args = collect(form, fields, '');
    request('tools/call', { name: tool, arguments: args }).then(show, (e) => {
      show({ content: [{ type: 'text', text: String((e && e.message) || e) }] });
    });
  });
  window.toolsmithCollect = (f) => collect(f, JSON.parse(f.dataset.toolsmithParams), '');
  request('ui/initialize', {
    appCapabilities: {},
    appInfo: { name: 'toolsmith form', version: '1' },
    protocolVersion: '2026-01-26',
  }).then(() => host.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} }, '*'));
