// @ts-check
// clients.js shows, on a session's page, who is connected to the session:
// the lab's tabs and every game following it (engine, version) and each
// capture a game streams (engine, version, capture rate, progress,
// dropped updates), with Stop capture, which makes the capture a saved
// trace (docs/capture-protocol.md). It asks GET /api/sessions/{id}/clients
// every second while the page is visible.

const EVERY = 1000; // ms between two looks

/**
 * @typedef {{id: string, engine?: string, version?: string, client?: string, since: string}} Follower
 * @typedef {{capture: string, name: string, engine: string, version: string, client?: string, rate: number,
 *   connected: boolean, updates: number, batches: number, dropped: number, bytes: number, ceiling?: number,
 *   created: string}} Capture
 * @typedef {{followers: Follower[], captures: Capture[]}} Clients
 */

/**
 * watchClients keeps el (a <details> with a <summary> and a list element)
 * showing session id's clients.
 * @param {string} id the session
 * @param {HTMLDetailsElement} el
 */
export function watchClients(id, el) {
  const summary = /** @type {HTMLElement} */ (el.querySelector('summary'));
  const list = /** @type {HTMLElement} */ (el.querySelector('.clients-list'));
  const base = '/api/sessions/' + encodeURIComponent(id);
  /** @type {Record<string, string>} traces made from captures, by capture id, to link */
  const saved = {};
  let timer = 0;

  const look = async () => {
    timer = 0;
    try {
      const resp = await fetch(base + '/clients', { headers: { Accept: 'application/json' } });
      if (resp.ok) show(/** @type {Clients} */ (await resp.json()));
    } catch {
      // Offline: the live sync's state says so; look again later.
    }
    if (!document.hidden) timer = window.setTimeout(look, EVERY);
  };
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !timer) look();
  });

  /** @param {Clients} c */
  function show(c) {
    const tabs = c.followers.filter((f) => !f.engine).length;
    const games = c.followers.filter((f) => f.engine);
    const live = c.captures.filter((x) => x.connected).length;
    summary.textContent = `${tabs} tab${tabs === 1 ? '' : 's'}` +
      (games.length ? ` · ${games.length} game${games.length === 1 ? '' : 's'}` : '') +
      (c.captures.length ? ` · ${c.captures.length} capture${c.captures.length === 1 ? '' : 's'}` + (live ? ` (${live} live)` : '') : '');
    const rows = [];
    rows.push(row('lab tabs', String(tabs), ''));
    for (const g of games) {
      rows.push(row(`${g.engine} ${g.version ?? ''}`.trim(), g.client ? `following · ${g.client}` : 'following', ''));
    }
    for (const x of c.captures) {
      const r = row(`${x.engine} ${x.version}`, '', x.capture);
      const what = /** @type {HTMLElement} */ (r.querySelector('.what'));
      what.append(
        `${fmt(x.rate)} Hz · `,
        b(x.name), ': ',
        b(x.updates.toLocaleString('en')), ' updates stored',
        ` (${x.batches} batches, ${(x.bytes / 1048576).toFixed(1)} MiB), `,
        b(x.dropped.toLocaleString('en')), ' dropped · ',
        x.connected ? `streaming${x.ceiling ? ` (≤ ${x.ceiling.toLocaleString('en')}/s)` : ''}` : 'not connected',
      );
      const stop = document.createElement('button');
      stop.type = 'button';
      stop.className = 'stop-capture';
      stop.textContent = 'Stop capture';
      stop.title = 'Make the capture a saved trace: replay, compare and the studies read it';
      stop.addEventListener('click', () => stopCapture(x, stop));
      r.append(stop);
      rows.push(r);
    }
    for (const [cap, trace] of Object.entries(saved)) {
      if (c.captures.some((x) => x.capture === cap)) continue;
      const r = row('saved', '', cap);
      const a = document.createElement('a');
      a.href = '/?trace=' + encodeURIComponent(trace);
      a.textContent = trace;
      a.className = 'saved-trace';
      /** @type {HTMLElement} */ (r.querySelector('.what')).append('trace ', a, ' (replay it in the lab; also on ', link('/traces', 'Traces'), ')');
      rows.push(r);
    }
    list.replaceChildren(...rows);
  }

  /**
   * @param {Capture} x
   * @param {HTMLButtonElement} button
   */
  async function stopCapture(x, button) {
    button.disabled = true;
    button.textContent = 'Saving…';
    try {
      const resp = await fetch(`${base}/captures/${encodeURIComponent(x.capture)}/stop`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}',
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.error || resp.statusText);
      saved[x.capture] = body.name;
    } catch (e) {
      button.disabled = false;
      button.textContent = 'Stop capture';
      button.title = 'Not saved: ' + (e instanceof Error ? e.message : String(e));
      button.classList.add('failed');
    }
    if (timer) window.clearTimeout(timer);
    look();
  }

  look();
}

/**
 * @param {string} who
 * @param {string} what
 * @param {string} capture
 */
function row(who, what, capture) {
  const r = document.createElement('div');
  r.className = 'client';
  if (capture) r.dataset.capture = capture;
  const w = document.createElement('b');
  w.textContent = who;
  const s = document.createElement('span');
  s.className = 'what';
  s.textContent = what;
  r.append(w, ' ', s, ' ');
  return r;
}

/** @param {string} text */
function b(text) {
  const e = document.createElement('b');
  e.textContent = text;
  return e;
}

/**
 * @param {string} href
 * @param {string} text
 */
function link(href, text) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  return a;
}

/** @param {number} v */
function fmt(v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
