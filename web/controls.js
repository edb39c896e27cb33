// @ts-check
// controls.js reads and writes the parameter controls that the server
// rendered from the engine's parameter table. Every control carries its
// vocabulary name as its name attribute; values cross this module in stored
// units (seconds, fractions, an index for an enum, a bit mask for a set).

/** @typedef {import('./types/interplab').Param} Param */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */

export class Controls {
  /**
   * @param {HTMLFormElement} form the form holding one control per parameter
   * @param {Param[]} params the engine's parameter table (interplab.params())
   */
  constructor(form, params) {
    this.form = form;
    this.params = params;
    this.byName = new Map(params.map((p) => [p.name, p]));
  }

  /**
   * inputs returns the controls named name (several for a set).
   * @param {string} name
   * @returns {Control[]}
   */
  inputs(name) {
    return [...this.form.querySelectorAll(`[name="${name}"]`)].filter(
      (el) => el instanceof HTMLInputElement || el instanceof HTMLSelectElement);
  }

  /**
   * checked tells whether a control is a ticked check box or radio button.
   * @param {Control} el
   */
  static checked(el) {
    return el instanceof HTMLInputElement && el.checked;
  }

  /**
   * exact returns a numeric control's value: the one it was given (by the
   * link, or setValue) until the designer moves it, for a slider snaps its
   * value to its step and a link may hold any value in range (a population
   * run's entity: a latency of 49.6 ms on a 1 ms slider).
   * @param {Control} el
   */
  static exact(el) {
    return Number(el.dataset.exact ?? el.value);
  }

  /**
   * value returns the control's value for parameter p, in stored units.
   * @param {Param} p
   * @returns {number}
   */
  value(p) {
    const els = this.inputs(p.name);
    switch (p.kind) {
      case 'bool':
        return Controls.checked(els[0]) ? 1 : 0;
      case 'enum':
        return p.choices.indexOf(els[0].value);
      case 'set': {
        let mask = 0;
        for (const el of els) {
          if (Controls.checked(el)) mask |= 1 << p.choices.indexOf(el.value);
        }
        return mask;
      }
      default:
        return Controls.exact(els[0]);
    }
  }

  /** values returns every parameter's value, in table order, as create takes them. */
  values() {
    return Float64Array.from(this.params, (p) => this.value(p));
  }

  /**
   * setValue shows v (stored units) in parameter name's control.
   * @param {string} name
   * @param {number} v
   */
  setValue(name, v) {
    const p = this.byName.get(name);
    if (!p) return;
    const els = this.inputs(name);
    switch (p.kind) {
      case 'bool':
        if (els[0] instanceof HTMLInputElement) els[0].checked = v !== 0;
        break;
      case 'enum':
        els[0].value = p.choices[v];
        break;
      case 'set':
        for (const el of els) {
          if (el instanceof HTMLInputElement) el.checked = (v & (1 << p.choices.indexOf(el.value))) !== 0;
        }
        break;
      default:
        els[0].value = String(v);
        els[0].dataset.exact = String(v);
    }
    this.show(name);
  }

  /**
   * show refreshes the value shown beside a numeric control, in display units.
   * @param {string} name
   */
  show(name) {
    const el = this.inputs(name)[0];
    const out = document.getElementById('o-' + name);
    if (!out || !el) return;
    const scale = Number(el.dataset.scale || 1);
    out.textContent = (Controls.exact(el) * scale).toFixed(Number(el.dataset.decimals || 0));
  }

  /**
   * mark flags a control whose value the engine refused (message) or clears
   * the flag (message "").
   * @param {string} name
   * @param {string} message
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
   * @param {(name: string, value: number) => void} onChange
   */
  listen(onChange) {
    this.form.addEventListener('submit', (e) => e.preventDefault());
    /** @param {Event} e */
    const report = (e) => {
      const el = e.target;
      if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) return;
      const name = el.name;
      const p = this.byName.get(name);
      if (!p) return;
      delete el.dataset.exact; // moved: its own value now
      const live = e.type === 'input';
      const isSlider = el.type === 'range';
      if (isSlider) this.show(name);
      if (live && !(isSlider && !p.restart)) return;
      if (!live && isSlider && !p.restart) return; // already reported while moving
      if (el.type === 'number' && el.value === '') return; // being typed
      if (el.type === 'number' && !el.checkValidity()) {
        // Let the engine word the error, as for a link.
        onChange(name, Number(el.value));
        return;
      }
      onChange(name, this.value(p));
    };
    this.form.addEventListener('input', report);
    this.form.addEventListener('change', report);
  }
}
