// @ts-check
// replay.js fetches the recorded trace a page replays (/?trace=NAME): the
// server marks such a page with a banner (#trace-banner) naming the trace,
// the parameters the replay takes from it and those that do not shape its
// packets (they only shape the client clock's pings).

/**
 * loadReplay fetches the trace named by banner's data-trace as the flat
 * numbers interplab.createReplay takes (GET /api/traces/NAME/flat,
 * little-endian float64s). Without a banner there is nothing to replay.
 * When the fetch fails the banner goes away and errors says why, so the page
 * runs its settings without a replay.
 * @param {HTMLElement|null} banner
 * @returns {Promise<{replay: {name: string, flat: Float64Array, names: string[], ignored: string[]}|null, errors: string[]}>}
 */
export async function loadReplay(banner) {
  if (!banner) return { replay: null, errors: [] };
  const name = banner.dataset.trace ?? '';
  try {
    const res = await fetch('/api/traces/' + encodeURIComponent(name) + '/flat');
    if (!res.ok) {
      const body = await res.json().catch(() => ({ error: res.statusText }));
      throw new Error(body.error || res.statusText);
    }
    const flat = new Float64Array(await res.arrayBuffer());
    const names = (banner.dataset.fixed || '').split(',').filter((n) => n !== '');
    const ignored = (banner.dataset.ignored || '').split(',').filter((n) => n !== '');
    return { replay: { name, flat, names, ignored }, errors: [] };
  } catch (err) {
    banner.remove();
    return { replay: null, errors: [`trace ${name}: cannot load it: ${err instanceof Error ? err.message : err}`] };
  }
}
