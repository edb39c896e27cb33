// @ts-check
// presets.js adds custom presets to the lab page, beside the preset picker:
// "Save as preset" (a name and a description; POST /api/presets), "Import"
// of a preset file (the same JSON files as the lab's presets/*.json), the
// selected preset's file (GET /api/presets/{name}.json) and, for a custom
// one, Delete. Custom presets are listed in the picker after the built-in
// ones, marked (custom). Built-in names cannot be taken: the server says so.

import { byId } from './dom.js';
import { settingsJSON } from './session.js';

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {import('./types/interplab').ApiError} ApiError
 * @typedef {{name: string, title: string, doc: string, custom: boolean, query: string, file: string}} ApiPreset
 * @typedef {{engine: Interplab, params: Param[], values: () => Float64Array, choose: (opt: HTMLOptionElement) => void,
 *   scenarioText: () => string}} PresetsPage
 */

/** @param {PresetsPage} page */
export function initPresets(page) {
  const select = byId('preset', HTMLSelectElement);
  const group = byId('preset-custom', HTMLOptGroupElement);
  const label = select.closest('label');
  if (!label) return;

  const tools = Object.assign(document.createElement('span'), { className: 'preset-tools', id: 'preset-tools' });
  const saveAs = Object.assign(document.createElement('button'), {
    type: 'button', id: 'preset-save', textContent: 'Save as preset…',
    title: 'Save these settings as a preset of this lab, listed with the built-in ones',
  });
  const importButton = Object.assign(document.createElement('button'), {
    type: 'button', id: 'preset-import', textContent: 'Import…', title: 'Import a preset file (the JSON of a preset: presets/*.json, or one exported here)',
  });
  const fileInput = Object.assign(document.createElement('input'), { type: 'file', id: 'preset-import-file', accept: '.json,application/json', hidden: true });
  const file = Object.assign(document.createElement('a'), { id: 'preset-file', textContent: 'File', title: "Download the selected preset's file, to import into another lab" });
  const del = Object.assign(document.createElement('button'), { type: 'button', id: 'preset-delete', textContent: 'Delete', title: 'Delete this custom preset' });
  const err = Object.assign(document.createElement('span'), { className: 'preset-error', id: 'preset-error', role: 'alert', hidden: true });
  tools.append(saveAs, importButton, fileInput, file, del, err);
  label.after(tools);

  /** @param {string} text */
  const showError = (text) => {
    err.textContent = text;
    err.hidden = text === '';
  };
  const update = () => {
    const opt = select.selectedOptions[0];
    const name = opt?.value ?? '';
    file.hidden = name === '';
    file.href = name ? `/api/presets/${encodeURIComponent(name)}.json` : '';
    file.download = name ? name + '.json' : '';
    del.hidden = opt?.dataset.custom === undefined;
  };
  select.addEventListener('change', () => {
    showError('');
    update();
  });
  update();

  /**
   * add lists a preset the server saved in the picker and selects it.
   * @param {ApiPreset} p
   */
  const add = (p) => {
    const opt = new Option(p.title + ' (custom)', p.name);
    opt.dataset.query = p.query;
    opt.dataset.doc = p.doc;
    opt.dataset.custom = '';
    const after = [...group.children].find((o) => o instanceof HTMLOptionElement && o.value > p.name);
    group.insertBefore(opt, after ?? null);
    group.hidden = false;
    select.value = p.name;
    page.choose(opt);
    update();
  };

  /**
   * post sends a preset file; it answers an error text, or '' when saved.
   * @param {string} body
   */
  const post = async (body) => {
    try {
      const resp = await fetch('/api/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      /** @type {ApiPreset & ApiError} */
      const reply = await resp.json().catch(() => ({ error: `${resp.status} ${resp.statusText}` }));
      if (!resp.ok) return reply.error ?? `${resp.status} ${resp.statusText}`;
      add(reply);
      return '';
    } catch (e) {
      return 'could not reach the server: ' + (e instanceof Error ? e.message : String(e));
    }
  };

  const dialog = buildDialog();
  label.after(dialog.el);
  saveAs.addEventListener('click', () => {
    dialog.error.hidden = true;
    dialog.el.showModal();
    dialog.name.focus();
  });
  dialog.cancel.addEventListener('click', () => dialog.el.close());
  dialog.form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const name = dialog.name.value.trim();
    const body = JSON.stringify({
      name,
      title: dialog.title.value.trim() || name,
      doc: dialog.doc.value.trim(),
      settings: settingsJSON({
        engine: page.engine, params: page.params, values: page.values, query: () => '', set: () => {}, watch: () => {},
        scenarioText: page.scenarioText, applyScenario: () => '',
      }),
    });
    dialog.submit.disabled = true;
    const text = await post(body);
    dialog.submit.disabled = false;
    if (text) {
      dialog.error.textContent = text;
      dialog.error.hidden = false;
      return;
    }
    dialog.el.close();
  });

  importButton.addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files?.[0];
    fileInput.value = '';
    if (!f) return;
    showError(await post(await f.text()).then((t) => (t ? `import ${f.name}: ${t}` : '')));
  });

  del.addEventListener('click', async () => {
    const opt = select.selectedOptions[0];
    if (!opt || opt.dataset.custom === undefined) return;
    if (!confirm(`Delete the custom preset ${opt.value}? Its file (File) brings it back.`)) return;
    const resp = await fetch('/api/presets/' + encodeURIComponent(opt.value), { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
    if (!resp.ok) {
      /** @type {ApiError} */
      const reply = await resp.json().catch(() => ({ error: `${resp.status} ${resp.statusText}` }));
      showError(reply.error);
      return;
    }
    opt.remove();
    group.hidden = group.children.length === 0;
    update();
  });
}

// buildDialog makes the Save as preset dialog.
function buildDialog() {
  const el = Object.assign(document.createElement('dialog'), { id: 'preset-dialog', className: 'save-dialog' });
  const form = Object.assign(document.createElement('form'), { id: 'preset-form', method: 'dialog' });
  /**
   * @template {HTMLElement} T
   * @param {string} text
   * @param {T} input
   */
  const field = (text, input) => {
    form.append(Object.assign(document.createElement('label'), { htmlFor: input.id, textContent: text }), input);
    return input;
  };
  form.append(Object.assign(document.createElement('h2'), { textContent: 'Save as a preset of this lab' }));
  const name = field('Name (in links and file names: lower-case letters, digits, -)', Object.assign(document.createElement('input'), {
    id: 'preset-name', required: true, maxLength: 40, pattern: '[a-z0-9][a-z0-9\\-]*', placeholder: 'team-wifi',
  }));
  const title = field('Title (shown in the picker; the name if empty)', Object.assign(document.createElement('input'), { id: 'preset-title', maxLength: 80 }));
  const doc = field('Description (one line: what it models, where the numbers come from)', Object.assign(document.createElement('textarea'), {
    id: 'preset-doc-input', required: true, rows: 3, maxLength: 500,
  }));
  const error = Object.assign(document.createElement('p'), { id: 'preset-save-error', className: 'save-error', role: 'alert', hidden: true });
  const buttons = Object.assign(document.createElement('div'), { className: 'save-buttons' });
  const cancel = Object.assign(document.createElement('button'), { type: 'button', id: 'preset-cancel', textContent: 'Cancel' });
  const submit = Object.assign(document.createElement('button'), { type: 'submit', id: 'preset-submit', className: 'on', textContent: 'Save preset' });
  buttons.append(cancel, submit);
  form.append(error, buttons);
  el.append(form);
  return { el, form, name, title, doc, error, cancel, submit };
}
