// @ts-check
// format.js formats numbers for people, as the engine does (param.Readable,
// param.ReadableIn in engine/param/units.go), digit for digit: whole numbers in
// full (2761734960, not 2.76173496e+9), other numbers to a few significant
// digits without an exponent (0.2, 0.0186, 49.6123), from the shortest
// decimal that reads back as the number, half away from zero. It also reads
// the settings of the JSON API, whose numbers are in stored (SI) units.

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 */

/** How many significant digits a number box shows (engine.ShowDigits). */
export const SHOW_DIGITS = 6;

/**
 * exponentOf returns k when x is exactly 10^k, else null.
 * @param {number} x
 * @returns {number | null}
 */
function exponentOf(x) {
  if (!(x > 0)) return null;
  const k = Math.round(Math.log10(x));
  return k >= -300 && k <= 300 && Number('1e' + k) === x ? k : null;
}

/**
 * plainShifted writes |v| × 10^k in plain decimal notation from v's
 * shortest representation, exactly (engine's plainShifted).
 * @param {number} v finite, not 0
 * @param {number} k
 */
function plainShifted(v, k) {
  const [mant, exps] = Math.abs(v).toExponential().split('e');
  const digits = mant.replace('.', '');
  const point = Number(exps) + k + 1; // digits before the decimal point
  if (point <= 0) return '0.' + '0'.repeat(-point) + digits;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return digits.slice(0, point) + '.' + digits.slice(point);
}

/**
 * roundDecimal rounds s, a positive number in plain decimal notation, to
 * sig significant digits but no fewer than its whole digits, half away from
 * zero, dropping trailing zeros after the point (engine's roundDecimal).
 * @param {string} s
 * @param {number} sig
 */
function roundDecimal(s, sig) {
  const [whole, frac = ''] = s.split('.');
  const e = whole === '0' ? -1 - (frac.length - frac.replace(/^0+/, '').length) : whole.length - 1;
  const keep = Math.max(0, sig - 1 - e);
  if (frac.length <= keep) return s;
  const digits = (whole + frac.slice(0, keep)).split('').map(Number);
  let up = frac.charCodeAt(keep) >= 53; // '5'
  for (let i = digits.length - 1; up && i >= 0; i--) {
    if (digits[i] === 9) {
      digits[i] = 0;
    } else {
      digits[i]++;
      up = false;
    }
  }
  if (up) digits.unshift(1);
  const n = digits.length - keep;
  const out = digits.slice(0, n).join('').replace(/^0+(?=\d)/, '');
  const f = digits.slice(n).join('').replace(/0+$/, '');
  return f ? out + '.' + f : out;
}

/**
 * readable formats v × scale for a person to sig significant digits (a
 * stored value shown in its display unit: scale is the parameter's scale);
 * engine.ReadableIn.
 * @param {number} v
 * @param {number} scale
 * @param {number} sig
 * @returns {string}
 */
export function readable(v, scale, sig) {
  const x = v * scale;
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a < 1e-9 || a >= 1e21) return String(Number(x.toPrecision(sig)));
  const k = exponentOf(scale);
  const s = k === null ? roundDecimal(plainShifted(x, 0), sig) : roundDecimal(plainShifted(v, k), sig);
  return x < 0 && s !== '0' ? '-' + s : s;
}

/**
 * show formats parameter p's stored value v for people: a number with a
 * display unit in that unit, to SHOW_DIGITS significant digits, with the
 * unit ("120 ms"); anything else as the engine writes it (engine.format).
 * @param {Pick<Interplab, 'format'>} engine
 * @param {Pick<Param, 'name' | 'display' | 'scale'>} p
 * @param {number} v
 * @returns {string}
 */
export function show(engine, p, v) {
  return p.display && p.scale ? `${readable(v, p.scale, SHOW_DIGITS)} ${p.display}` : engine.format(p.name, v);
}

/**
 * fromJSON reads the value of parameter name as the JSON API gives it
 * (sessions, live configs): a number in the stored unit, true or false, a
 * choice's name, an array of names. It returns the value in stored units,
 * range-checked by the engine, or the engine's message.
 * @param {Pick<Interplab, 'format' | 'parse'>} engine
 * @param {string} name
 * @param {unknown} v
 * @returns {{value: number, error: string}}
 */
export function fromJSON(engine, name, v) {
  // A number is stored units: its text form (with the display unit) reads
  // back as exactly that number, checked.
  if (typeof v === 'number') return engine.parse(name, engine.format(name, v));
  return engine.parse(name, Array.isArray(v) ? v.join(',') : String(v));
}
