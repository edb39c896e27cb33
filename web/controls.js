// controls.js reads and writes the parameter controls that the server
// rendered from the engine's parameter table. Every control carries its
// vocabulary name as its name attribute; values cross this module in stored
// units (seconds, fractions, an index for an enum, a bit mask for a set).

export class Controls {
  /**
   * @param {HTMLFormElement} form the form holding one control per parameter
   * @param {object[]} params the engine's parameter table (interplab.params())
   */
  constructor(form, params) {
    this.form = form;
    this.params = params;
    this.byName = new Map(params.map((p) => [p.name, p]));
  }

  /** inputs returns the elements named name (several for a set). */
  inputs(name) {
    return [...this.form.querySelectorAll(`[name="${name}"]`)];
  }

  /** value returns the control's value for parameter p, in stored units. */
  value(p) {
    const els = this.inputs(p.name);
    switch (p.kind) {
      case 'bool':
        return els[0].checked ? 1 : 0;
      case 'enum':
        return p.choices.indexOf(els[0].value);
      case 'set': {
        let mask = 0;
        for (const el of els) {
          if (el.checked) mask |= 1 << p.choices.indexOf(el.value);
        }
        return mask;
      }
      default:
        return Number(els[0].value);
    }
  }

  /** values returns every parameter's value, in table order, as create takes them. */
  values() {
    return Float64Array.from(this.params, (p) => this.value(p));
  }

  /** setValue shows v (stored units) in parameter name's control. */
  setValue(name, v) {
    const p = this.byName.get(name);
    const els = this.inputs(name);
    switch (p.kind) {
      case 'bool':
        els[0].checked = v !== 0;
        break;
      case 'enum':
        els[0].value = p.choices[v];
        break;
      case 'set':
        for (const el of els) el.checked = (v & (1 << p.choices.indexOf(el.value))) !== 0;
        break;
      default:
        els[0].value = String(v);
    }
    this.show(name);
  }

  /** show refreshes the value shown beside a numeric control, in display units. */
  show(name) {
    const el = this.inputs(name)[0];
    const out = document.getElementById('o-' + name);
    if (!out || !el) return;
    const scale = Number(el.dataset.scale || 1);
    out.textContent = (Number(el.value) * scale).toFixed(Number(el.dataset.decimals || 0));
  }

  /**
   * mark flags a control whose value the engine refused (message) or clears
   * the flag (message "").
   */
  mark(name, message) {
    const field = this.inputs(name)[0]?.closest('.field');
    if (field) field.classList.toggle('invalid', message !== '');
  }

  /**
   * listen calls onChange(name, value) when a control changes. Sliders of
   * parameters that do not restart the run report while they move; the
   * others report when released, so dragging does not restart the run at
   * every pixel.
   */
  listen(onChange) {
    this.form.addEventListener('submit', (e) => e.preventDefault());
    const report = (e) => {
      const name = e.target.name;
      const p = this.byName.get(name);
      if (!p) return;
      const live = e.type === 'input';
      const isSlider = e.target.type === 'range';
      if (isSlider) this.show(name);
      if (live && !(isSlider && !p.restart)) return;
      if (!live && isSlider && !p.restart) return; // already reported while moving
      if (e.target.type === 'number' && e.target.value === '') return; // being typed
      if (e.target.type === 'number' && !e.target.checkValidity()) {
        // Let the engine word the error, as for a link.
        onChange(name, Number(e.target.value));
        return;
      }
      onChange(name, this.value(p));
    };
    this.form.addEventListener('input', report);
    this.form.addEventListener('change', report);
  }
}
