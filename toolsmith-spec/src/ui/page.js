  async function call(form, tool, args) {
    const endpoint = form.getAttribute('action');
    if (endpoint) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool, arguments: args }),
      });
      return await response.text();
    }
    return await new Promise((respond) => {
      form.dispatchEvent(new CustomEvent('toolsmith:call', { bubbles: true, detail: { tool, arguments: args, respond } }));
    });
  }
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.toolsmithTool) return;
    event.preventDefault();
    const tool = form.dataset.toolsmithTool;
    const args = collect(form, JSON.parse(form.dataset.toolsmithParams), '');
    const result = call(form, tool, args).then((text) => present(form, text));
    if (event.agentInvoked && typeof event.respondWith === 'function') event.respondWith(result);
  });
  // Shows a result in the form's <output> (JSON pretty-printed); returns it as text.
  function present(form, text) {
    const raw = typeof text === 'string' ? text : JSON.stringify(text);
    const out = form.querySelector('output.toolsmith-result');
    if (out) {
      let shown = raw;
      try { shown = JSON.stringify(JSON.parse(raw), null, 2); } catch (e) { /* not JSON */ }
      out.textContent = shown;
    }
    return raw;
  }
  // A form the browser cannot derive the tool from (a list of free values, a nested object)
  // is registered through WebMCP's imperative API with the spec's own schema; an agent's call
  // fills the form in, for the person to see, and goes to the same endpoint.
  const modelContext = document.modelContext || navigator.modelContext;
  if (modelContext && typeof modelContext.registerTool === 'function') {
    for (const form of document.querySelectorAll('form[data-toolsmith-webmcp]')) {
      const def = JSON.parse(form.dataset.toolsmithWebmcp);
      const fields = JSON.parse(form.dataset.toolsmithParams);
      const tool = form.dataset.toolsmithTool;
      const execute = async (args) => {
        form.reset();
        fill(form, fields, args || {}, '');
        const text = present(form, await call(form, tool, args || {}));
        return { content: [{ type: 'text', text }] };
      };
      Promise.resolve(modelContext.registerTool({ ...def, execute })).catch(() => {});
    }
  }
  window.toolsmithCollect = (form) => collect(form, JSON.parse(form.dataset.toolsmithParams), '');
