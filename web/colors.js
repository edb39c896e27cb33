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
    c = read(getComputedStyle(document.documentElement), name);
    cache.set(name, c);
  }
  return c;
}

/**
 * readColors reads the colours of names (techniques, 'truth') now, in one
 * pass, so that techColor gives them without reading the page's style.
 * lab.js calls it before it puts the side panel's fields in place, while
 * the page's style is up to date and reading it costs nothing. Read first
 * in the set-up, after them, a colour had Chromium compute the style of
 * the whole page (the fields' ~900 new elements) in the middle of it; now
 * the first frame's own style update does that, once, with everything
 * the set-up changed.
 * @param {string[]} names
 */
export function readColors(names) {
  /** @type {CSSStyleDeclaration | null} */
  let style = null;
  for (const name of names) {
    if (cache.has(name)) continue;
    style ??= getComputedStyle(document.documentElement);
    cache.set(name, read(style, name));
  }
}

/**
 * read returns the colour of name in style, the root element's computed style.
 * @param {CSSStyleDeclaration} style
 * @param {string} name
 */
function read(style, name) {
  return style.getPropertyValue(name === 'truth' ? '--truth' : '--tech-' + name).trim() || '#8b949e';
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
