  // The arguments of a form, typed by the descriptor the form carries (data-toolsmith-params).
  function collect(form, fields, prefix) {
    const data = new FormData(form);
    const args = {};
    for (const f of fields) {
      const name = prefix + f.name;
      let value;
      if (f.type === 'object') {
        value = collect(form, f.fields, name + '.');
        if (Object.keys(value).length === 0 && !f.required) continue;
      } else if (f.type === 'boolean') {
        // Unchecked is `false` where the call must carry it (required, or the default is true);
        // elsewhere it is no value, so the tool's default (false) applies.
        const box = form.querySelector('input[type=checkbox][name="' + CSS.escape(name) + '"]');
        value = !!(box && box.checked);
        if (!value && !f.required && !f.defaultTrue) continue;
      } else if (f.type === 'array') {
        let raw = data.getAll(name).map(String);
        if (f.lines) raw = raw.flatMap((v) => v.split('\n')).map((v) => v.trim());
        raw = raw.filter((v) => v !== '');
        if (raw.length === 0 && !f.required) continue;
        value = raw.map((v) => typed(v, f.items));
      } else {
        const raw = data.get(name);
        if (raw === null || raw === '') continue;
        value = typed(String(raw), f.type);
      }
      args[f.name] = value;
    }
    return args;
  }
  function typed(raw, type) {
    if (type === 'integer' || type === 'number') return Number(raw);
    if (type === 'boolean') return raw === 'true';
    return raw;
  }
  // Sets the controls to `args` (the model's arguments, for the person to review).
  function fill(form, fields, args, prefix) {
    for (const f of fields) {
      if (!args || !(f.name in args)) continue;
      const name = prefix + f.name;
      const value = args[f.name];
      if (f.type === 'object') {
        fill(form, f.fields, value || {}, name + '.');
        continue;
      }
      const list = Array.isArray(value) ? value.map(String) : [];
      for (const el of form.querySelectorAll('[name="' + CSS.escape(name) + '"]')) {
        if (el.type === 'radio') el.checked = String(value) === el.value;
        else if (el.type === 'checkbox' && f.type === 'boolean') el.checked = value === true;
        else if (el.type === 'checkbox') el.checked = list.includes(el.value);
        else if (f.lines) el.value = list.join('\n');
        else if (f.type === 'json') el.value = JSON.stringify(value);
        else el.value = String(value);
      }
    }
  }
