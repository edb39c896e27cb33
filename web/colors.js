// @ts-check
// colors.js gives each technique its colour. The colours are defined once,
// in style.css (--tech-NAME, and --truth for the ground truth), so the
// picker, the legend, the metrics and the canvas agree.

/** @type {Map<string, string>} */
const cache = new Map();

/** @type {(() => void)[]} */
const themeListeners = [];

// The colours are the theme's: when the system's light/dark setting changes
// while the page is open, they are read again and every user redraws.
matchMedia('(prefers-color-scheme: light)').addEventListener('change', () => {
  cache.clear();
  for (const f of themeListeners) f();
});

/**
 * onThemeChange calls f after the page's theme changed (the system's
 * prefers-color-scheme), once techColor gives the new theme's colours: f
 * recolours what was drawn or styled with the old ones.
 * @param {() => void} f
 */
export function onThemeChange(f) {
  themeListeners.push(f);
}

/**
 * techColor returns the CSS colour of technique name ('truth' for the ghost).
 * @param {string} name
 * @returns {string}
 */
export function techColor(name) {
  let c = cache.get(name);
  if (!c) {
    const v = name === 'truth' ? '--truth' : '--tech-' + name;
    c = getComputedStyle(document.documentElement).getPropertyValue(v).trim() || '#8b949e';
    cache.set(name, c);
  }
  return c;
}

/**
 * rgba32 packs a #rrggbb colour as an opaque pixel of an ImageData's Uint32Array view.
 * @param {string} hex
 * @returns {number}
 */
export function rgba32(hex) {
  const n = parseInt(hex.slice(1, 7), 16);
  const r = (n >> 16) & 255;
  const g = (n >> 8) & 255;
  const b = n & 255;
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/**
 * libraryFirst orders techniques as the page shows them: lib, the library
 * the designer is on (Lab.primary), first when it runs, then the others in
 * their order. It returns a new array.
 * @param {string[]} techs
 * @param {string} lib
 * @returns {string[]}
 */
export function libraryFirst(techs, lib) {
  return techs.includes(lib) ? [lib, ...techs.filter((t) => t !== lib)] : techs.slice();
}

/**
 * fillLegend makes el a legend of the colours: the ground truth, then techs
 * in their order, each a .legend-item with its colour as --c.
 * @param {HTMLElement} el
 * @param {string[]} techs
 */
export function fillLegend(el, techs) {
  el.replaceChildren(...[['truth', 'ground truth'], ...techs.map((t) => [t, t])].map(([c, label]) => {
    const s = Object.assign(document.createElement('span'), { className: 'legend-item' + (c === 'truth' ? ' truth' : ''), textContent: label });
    s.style.setProperty('--c', techColor(c));
    return s;
  }));
}
