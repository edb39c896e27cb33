// @ts-check
// dom.js is the one way the page's modules find their elements: by id,
// checked to be what the module expects, so a renamed id or a changed tag
// fails at once with its name instead of as a null deep inside.

/**
 * byId returns the element with id, which must be an instance of type.
 * @template {Element} T
 * @param {string} id
 * @param {{new (): T, prototype: T}} type
 * @returns {T}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) {
    throw new Error(`#${id}: want ${type.name}, found ${el ? el.tagName.toLowerCase() : 'no element'}`);
  }
  return el;
}

/**
 * maybeId returns the element with id if there is one, checked as byId does;
 * null when the page has none.
 * @template {Element} T
 * @param {string} id
 * @param {{new (): T, prototype: T}} type
 * @returns {T | null}
 */
export function maybeId(id, type) {
  return document.getElementById(id) ? byId(id, type) : null;
}

/**
 * context2d returns canvas's 2D context; a browser without one cannot run
 * the lab, and says so.
 * @param {HTMLCanvasElement} canvas
 * @param {CanvasRenderingContext2DSettings} [opts]
 * @returns {CanvasRenderingContext2D}
 */
export function context2d(canvas, opts) {
  const ctx = canvas.getContext('2d', opts);
  if (!ctx) throw new Error(`#${canvas.id}: this browser has no 2D canvas`);
  return ctx;
}
