// @ts-check
// inert.js reads the engine's inert rules (engine/param.Inert, in each row
// of interplab.params()): a knob that has no effect under the current
// values says why, beside the knob and in the A/B note.

/** @typedef {import('./types/interplab').Param} Param */

/**
 * inertWhy returns why row p has no effect with values (the table's values,
 * in table order, stored units), or "" when it acts: the reason of its first
 * rule that holds, as engine Settings.Inert gives it.
 * @param {Param[]} params the parameter table
 * @param {ArrayLike<number>} values
 * @param {Param} p
 * @returns {string}
 */
export function inertWhy(params, values, p) {
  for (const r of p.inert ?? []) {
    if (r.when === '') return r.why;
    const i = params.findIndex((q) => q.name === r.when);
    if (i < 0) continue;
    const v = values[i];
    if (v >= r.from && v <= r.to) return r.why;
  }
  return '';
}

/**
 * inertText is the note shown for an inert knob: "no effect: why".
 * @param {string} why
 */
export function inertText(why) {
  return `No effect here: ${why}.`;
}
