// @ts-check
// joblinks.js keeps the lab page's "Sweep…", "Tune…" and "Population…"
// links on the current settings: /sweep, /tune and /population take them
// as a q: base ref.

/**
 * initJobLinks updates the links after every change of the settings.
 * @param {{query: () => string | undefined, watch: (f: () => void) => void}} page
 *   the lab: query() (the share query, undefined while the link has errors),
 *   watch(f) (f() after every change)
 */
export function initJobLinks(page) {
  const links = [...document.querySelectorAll('a#sweep-link, a#tune-link, a#population-link')].filter((a) => a instanceof HTMLAnchorElement);
  const update = () => {
    const query = page.query();
    if (query === undefined) return; // the server's href has the state shown
    for (const a of links) {
      const url = new URL(a.href);
      url.searchParams.set('base', 'q:' + query);
      a.href = url.pathname + url.search;
    }
  };
  page.watch(update);
  update();
}
