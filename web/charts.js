// @ts-check
// charts.js draws the server's go-echarts charts (package chart) in the
// page's theme. It is a classic script, loaded after echarts.min.js and
// before the charts' own inline scripts, which call labChart. When the
// system asks for dark, a chart uses ECharts' built-in dark theme on the
// page's panel colour (the --panel of style.css), and the one near-black
// ink of the light charts (the palette's black, a heatmap's chosen-cell
// border) turns light; otherwise the light theme on white, as the PNG
// export has always been. A change of the system setting redraws every
// chart.

(() => {
  const dark = matchMedia('(prefers-color-scheme: dark)');
  /** The inks of the light charts that vanish on a dark panel, and theirs there. */
  const DARK_INK = [['"#000000"', '"#d5dce4"'], ['"#111111"', '"#f0f6fc"']];
  /** @typedef {{el: HTMLElement, option: any, chart: import('./types/interplab').EChart | null, dark: boolean}} Drawn */
  /** @type {Drawn[]} */
  const drawn = [];

  /** @param {Drawn} c */
  function draw(c) {
    const isDark = dark.matches;
    if (c.chart && c.dark !== isDark) {
      c.chart.dispose();
      c.chart = null;
    }
    c.dark = isDark;
    c.chart ??= echarts.init(c.el, isDark ? 'dark' : null, { renderer: 'canvas' });
    let option = c.option;
    if (isDark) {
      let text = JSON.stringify(option);
      for (const [from, to] of DARK_INK) text = text.replaceAll(from, to);
      option = JSON.parse(text);
      option.backgroundColor = getComputedStyle(document.documentElement).getPropertyValue('--panel').trim() || '#11161d';
    }
    c.chart.setOption(option, true);
  }

  /**
   * labChart draws option into el, in the page's theme, and keeps it
   * fitted to el; called again for the same element it draws the new
   * option in place of the old.
   * @param {HTMLElement} el
   * @param {unknown} option ECharts options as JSON (go-echarts' JSON())
   */
  globalThis.labChart = (el, option) => {
    let c = drawn.find((d) => d.el === el);
    if (!c) {
      c = { el, option, chart: null, dark: false };
      drawn.push(c);
      const it = c;
      new ResizeObserver(() => it.chart?.resize()).observe(el);
    }
    c.option = option;
    draw(c);
  };

  dark.addEventListener('change', () => drawn.forEach(draw));
})();
