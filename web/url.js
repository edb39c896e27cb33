// @ts-check
// url.js keeps the address bar a share link of the current state:
// ?preset=NAME&<only the values that differ from the preset>, each value in
// the engine's text form (Param.Format: numbers in the display unit with the
// unit, latency=120ms, loss=2%, bandwidth=256kbit/s; enum names, true or
// false, comma-separated technique lists). A plain number in a link is in
// the display unit, as in the number boxes.

/** @typedef {import('./types/interplab').Interplab} Interplab */
/** @typedef {import('./types/interplab').Param} Param */

/**
 * presetValues returns the values of a preset, in table order: the
 * defaults with the preset's query (a diff from the defaults) applied.
 * @param {Interplab} lab the interplab object
 * @param {Param[]} params the parameter table
 * @param {string} query the preset's data-query
 * @returns {Float64Array}
 */
export function presetValues(lab, params, query) {
  const v = Float64Array.from(params, (p) => p.default);
  for (const [name, text] of new URLSearchParams(query)) {
    const i = params.findIndex((p) => p.name === name);
    if (i < 0) continue;
    const r = lab.parse(name, text);
    if (r.error === '') v[i] = r.value;
  }
  return v;
}

/**
 * shareQuery returns the query (without "?") that restores values on top of
 * preset: the preset's name, then every parameter whose text form differs
 * from the preset's, in table order.
 * @param {Interplab} lab
 * @param {Param[]} params
 * @param {string} preset the preset's name; "" for none
 * @param {ArrayLike<number>} base the preset's values
 * @param {ArrayLike<number>} values
 * @returns {string}
 */
export function shareQuery(lab, params, preset, base, values) {
  const parts = [];
  if (preset) parts.push('preset=' + encode(preset));
  params.forEach((p, i) => {
    // The same value has the same text: only a value that differs can
    // differ in text (two values can round to one text), so most
    // parameters cost no call into the engine (two for each of the
    // table's parameters took about a tenth of the page's start-up).
    if (Object.is(values[i], base[i])) return;
    const text = lab.format(p.name, values[i]);
    if (text !== lab.format(p.name, base[i])) parts.push(p.name + '=' + encode(text));
  });
  return parts.join('&');
}

/**
 * encode escapes a query value but keeps the commas of a list readable.
 * @param {string} text
 */
function encode(text) {
  return encodeURIComponent(text).replaceAll('%2C', ',');
}

/**
 * mirror replaces the address bar's query without a new history entry.
 * @param {string} query
 */
export function mirror(query) {
  const url = location.pathname + (query ? '?' + query : '');
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
}

/**
 * exportURL is the download address of the current state in format; from,
 * when not empty, says where the values come from (session:ID@REV).
 * @param {string} format
 * @param {string} query
 * @param {string} [from]
 */
export function exportURL(format, query, from = '') {
  return '/api/export?format=' + format + (query ? '&' + query : '') + (from ? '&from=' + encodeURIComponent(from) : '');
}

/**
 * previewURL is the comparison page of the current state over the lab's
 * network, over the game engine simulator netSim and over each of its other
 * versions (export.PreviewURL).
 * @param {string} netSim
 * @param {string} query
 * @param {string[]} [versions] netSim choices of the engine's other versions
 */
export function previewURL(netSim, query, versions = []) {
  const both = query ? query + '&' : '';
  let u = '/compare?v=' + encodeURIComponent('q:' + query);
  for (const sim of [netSim, ...versions]) u += '&v=' + encodeURIComponent('q:' + both + 'netSim=' + sim);
  return u;
}
