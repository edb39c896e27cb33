// @ts-check
// controls.js reads and writes the parameter controls that the server
// rendered from the engine's parameter table. Every control carries its
// vocabulary name as its name attribute; values cross this module in stored
// units (seconds, fractions, an index for an enum, a bit mask for a set).
// The number box beside a slider shows and takes the value in the display
// unit written beside it: a plain number typed there is in that unit, as
// everywhere in the lab (engine Param.Parse).

import { readable, SHOW_DIGITS } from './format.js';
import { inertText, inertWhy } from './inert.js';

/** @typedef {import('./types/interplab').Param} Param */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */

export class Controls {
  /**
   * @param {HTMLFormElement} form the form holding one control per parameter
   * @param {Param[]} params the engine's parameter table (interplab.params())
   * @param {(name: string, text: string) => {value: number, error: string}} parse
   *   the engine's Param.Parse (interplab.parse): typed values are checked
   *   and worded by it
   */
  constructor(form, params, parse) {
    this.form = form;
    this.params = params;
    this.parse = parse;
    this.byName = new Map(params.map((p) => [p.name, p]));
    /** @type {Map<string, number>} typed values a slider's step cannot hold, stored units */
    this.precise = new Map();
    /** @type {Map<string, Control[]> | null} the controls by name, in document order (inputs) */
    this.named = null;
    // A slider snaps the value it was served with to its step; the page's
    // link may hold any value in range (a population run's entity: a
    // latency of 49.6 ms on a 1 ms slider), kept as served (data-exact).
    for (const el of form.querySelectorAll('input[type="range"][data-exact]')) {
      if (!(el instanceof HTMLInputElement)) continue;
      const v = Number(el.dataset.exact);
      if (Number.isFinite(v) && v !== Number(el.value)) this.precise.set(el.name, v);
    }
  }

  /**
   * box returns the number box beside parameter name's slider, if any.
   * @param {string} name
   */
  box(name) {
    const el = document.getElementById('n-' + name);
    return el instanceof HTMLInputElement ? el : null;
  }

  /**
   * inputs returns the controls named name (several for a set).
   * @param {string} name
   * @returns {Control[]}
   */
  inputs(name) {
    if (!this.named) {
      // One pass over the form, the first time: a query per call, several
      // per parameter (values, markInert), was a tenth of the page's
      // start-up. Every control is in the form by then: the server renders
      // them, in templates that lab.js puts in place before it makes this.
      /** @type {Map<string, Control[]>} */
      const named = new Map();
      for (const el of this.form.querySelectorAll('[name]')) {
        if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) continue;
        const list = named.get(el.name);
        if (list) list.push(el);
        else named.set(el.name, [el]);
      }
      this.named = named;
    }
    return this.named.get(name)?.slice() ?? [];
  }

  /**
   * checked tells whether a control is a ticked check box or radio button.
   * @param {Control} el
   */
  static checked(el) {
    return el instanceof HTMLInputElement && el.checked;
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
        return this.precise.get(p.name) ?? Number(els[0].value);
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
        // A slider snaps to its step: keep a typed value as it was typed.
        if (Number(els[0].value) !== v) this.precise.set(name, v);
        else this.precise.delete(name);
    }
    this.show(name);
  }

  /**
   * show refreshes the value shown beside a numeric control, in display units.
   * @param {string} name
   */
  show(name) {
    const el = this.inputs(name)[0];
    const box = this.box(name);
    if (!box || !el) return;
    box.value = this.shown(name, this.precise.get(name) ?? Number(el.value));
    delete box.dataset.typed;
  }

  /**
   * shown formats v (stored units) as the number box shows it: in the
   * display unit, whole numbers in full and others to SHOW_DIGITS
   * significant digits (0.2 ms, 0.0186 %), as the server rendered it
   * (engine.ReadableIn).
   * @param {string} name
   * @param {number} v
   */
  shown(name, v) {
    const el = this.inputs(name)[0];
    return readable(v, Number(el?.dataset.scale || 1), SHOW_DIGITS);
  }

  /**
   * mark flags a control whose value the engine refused (message) or clears
   * the flag (message ""); the message shows under the control.
   * @param {string} name
   * @param {string} message
   */
  mark(name, message) {
    const field = this.inputs(name)[0]?.closest('.field');
    if (!field) return;
    field.classList.toggle('invalid', message !== '');
    let p = field.querySelector('.field-error');
    if (!p && message !== '') {
      p = Object.assign(document.createElement('p'), { className: 'field-error' });
      p.setAttribute('role', 'alert');
      field.append(p);
    }
    if (p) {
      p.textContent = message;
      if (p instanceof HTMLElement) p.hidden = message === '';
    }
  }

  /**
   * markInert marks the knobs that have no effect with values (the table's,
   * stored units), as the engine's inert rules say (Mirror's
   * bufferTimeMultiplier while dynamicAdjustment is on): the field is
   * dimmed and a note under it says why; a knob that acts again is
   * unmarked.
   * @param {ArrayLike<number>} values
   */
  markInert(values) {
    for (const p of this.params) {
      if (!p.inert?.length) continue;
      const field = this.inputs(p.name)[0]?.closest('.field');
      if (!field) continue;
      const why = inertWhy(this.params, values, p);
      field.classList.toggle('inert', why !== '');
      let note = field.querySelector('.field-inert');
      if (!note && why !== '') {
        note = Object.assign(document.createElement('p'), { className: 'field-inert' });
        field.append(note);
      }
      if (note instanceof HTMLElement) {
        note.textContent = why ? inertText(why) : '';
        note.hidden = why === '';
      }
    }
  }

  /**
   * typed reads the text typed in parameter p's number box through the
   * engine, as typed: a plain number is in the unit shown beside the box
   * (ms, %, kbit/s), a number with a unit is converted (20ms, 0.02s, 2%,
   * 2Mbit/s). It returns the value in stored units, or the engine's
   * message, which quotes the text as typed.
   * @param {Param} p
   * @param {string} text
   * @returns {{value: number, error: string}}
   */
  typed(p, text) {
    return this.parse(p.name, text.trim());
  }

  /**
   * listenBoxes wires the number boxes: Enter or leaving the box applies
   * the typed value (refused with the engine's message, the value kept
   * unchanged), Escape restores the shown value, ↑/↓ step by the slider's
   * step and Shift+↑/↓ by a tenth of it.
   * @param {(name: string, value: number) => void} onChange
   */
  listenBoxes(onChange) {
    for (const p of this.params) {
      const box = this.box(p.name);
      if (!box) continue;
      const apply = () => {
        if (box.dataset.typed !== '1') return;
        const r = this.typed(p, box.value);
        if (r.error) {
          this.mark(p.name, r.error);
          box.setAttribute('aria-invalid', 'true');
          return;
        }
        box.removeAttribute('aria-invalid');
        this.mark(p.name, '');
        this.setValue(p.name, r.value);
        onChange(p.name, r.value);
      };
      box.addEventListener('input', () => { box.dataset.typed = '1'; });
      box.addEventListener('change', apply);
      box.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          apply();
        } else if (e.key === 'Escape') {
          box.removeAttribute('aria-invalid');
          this.mark(p.name, '');
          this.show(p.name);
        } else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
          e.preventDefault();
          const step = (e.shiftKey ? p.step / 10 : p.step) * (e.key === 'ArrowUp' ? 1 : -1);
          const cur = this.value(p);
          // Round away the float noise of repeated steps, in stored units.
          const v = Math.min(p.max, Math.max(p.min, Math.round((cur + step) * 1e9) / 1e9));
          if (v === cur) return;
          this.setValue(p.name, v);
          onChange(p.name, v);
        }
      });
    }
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
      const live = e.type === 'input';
      const isSlider = el.type === 'range';
      if (isSlider) {
        this.precise.delete(name); // the slider moved: its value now
        this.show(name);
      }
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
    this.listenBoxes(onChange);
  }
}
