// @ts-check
// sync.js keeps a lab page on a saved session in step with every other tab
// and game on it, over the live sync WebSocket (/ws/sessions/{id}; the
// protocol is in cmd/lab/internal/live/hub.go).
//
// The server's config is the truth: the page applies every config it
// receives, through the same path as a designer's change, to each setting
// the designer has not changed locally since. A local change is sent as
// {"type":"set","name","value"} with the value's text form, and stays
// "wanted" until a config confirms it (or the server refuses it), so a
// config that was on its way before the change cannot undo it. Changes
// applied from the server are never sent back.
//
// The server forgets a session's unsaved live changes when its last client
// leaves (a reload, a dropped connection), and a new connection's first
// config is then the saved revision. The page's unsaved changes are the
// designer's, not news from a colleague: on a new connection, a setting the
// page holds away from the saved revision (page.saved) where the server
// holds the saved value is sent again, not undone.

import { fromJSON } from './format.js';

const RETRY_MIN = 500; // ms before the first reconnection; doubled after each failure
const RETRY_MAX = 10000; // ms, the longest wait between reconnections
const SEND_EVERY = 40; // ms: a slider dragged faster sends its latest value at this pace
const CLOSE_GONE = 4404; // the session does not exist or was deleted

/**
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {import('./types/interplab').ParseResult} ParseResult
 * @typedef {import('./types/interplab').SyncMessage} SyncMessage
 * @typedef {{params: Param[], values: () => ArrayLike<number>, set: (name: string, value: number) => void,
 *   format: (name: string, value: number) => string, parse: (name: string, text: string) => ParseResult,
 *   saved?: () => ArrayLike<number>}} SyncPage
 *   what Sync needs of the lab page; saved, the saved revision's values
 *   (table order), marks the page's unsaved changes, kept over a
 *   reconnection
 * @typedef {{state: (s: 'connecting' | 'live' | 'offline' | 'gone', retryMs?: number) => void,
 *   error: (text: string) => void, rev: (rev: number) => void}} SyncUI
 *   how Sync tells the page how it is
 * @typedef {{text: string, state: 'queued' | 'sent' | 'refused'}} Wanted
 */

/**
 * syncURL returns the live sync address of session id on this page's server.
 * @param {string} id
 */
export function syncURL(id) {
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws/sessions/' + encodeURIComponent(id);
}

export class Sync {
  /**
   * @param {string} url the session's live sync address (syncURL)
   * @param {SyncPage} page the lab: params (the table), values() (stored units,
   *   table order), set(name, value) (as a designer's change), format(name,
   *   value) → text, parse(name, text) → {value, error}
   * @param {SyncUI} ui callbacks: state(s) with s "connecting", "live",
   *   "offline" or "gone"; error(text) ("" clears); rev(n) when the session's
   *   saved revision changes
   * @param {number} rev the revision the page was rendered from
   */
  constructor(url, page, ui, rev) {
    this.url = url;
    this.page = page;
    this.ui = ui;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.me = ''; // this connection's client id, from the first config
    /** @type {Map<string, string> | null} name → text: the server's settings, from the last config */
    this.known = null;
    this.seen = this.localTexts(); // name → text: the page's settings when last looked at
    /** @type {Map<string, Wanted>} */
    this.wanted = new Map();
    /** @type {string[]} names sent and not yet answered, oldest first */
    this.inflight = [];
    this.rev = rev;
    this.retry = RETRY_MIN;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.flushTimer = undefined;
    this.lastSend = 0;
    this.stopped = false;
    this.applying = false; // while the server's settings are applied: not local changes
  }

  /** start connects, and reconnects with backoff whenever the connection drops. */
  start() {
    this.stopped = false;
    this.connect();
  }

  /** close disconnects for good. */
  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000);
  }

  /**
   * local tells the sync that the page's settings may have changed (the lab
   * calls it after every change); what the designer changed is sent.
   */
  local() {
    if (this.applying) return;
    const now = this.localTexts();
    for (const [name, text] of now) {
      if (text === this.seen.get(name)) continue;
      this.seen.set(name, text);
      if (this.known && text === this.known.get(name) && !this.wanted.has(name)) continue;
      this.wanted.set(name, { text, state: 'queued' });
    }
    this.flush();
  }

  /** @returns {Map<string, string>} */
  localTexts() {
    const values = this.page.values();
    return new Map(this.page.params.map((p, i) => [p.name, this.page.format(p.name, values[i])]));
  }

  connect() {
    clearTimeout(this.timer);
    this.ui.state('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = (e) => this.closed(ws, e.code);
  }

  /**
   * @param {WebSocket} ws
   * @param {number} code
   */
  closed(ws, code) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.me = '';
    this.inflight = [];
    for (const w of this.wanted.values()) w.state = 'queued'; // resent after reconnecting
    if (code === CLOSE_GONE) {
      this.stopped = true;
      this.ui.state('gone');
      this.ui.error('This session no longer exists: it was deleted. Save to keep these settings as a new session.');
      return;
    }
    if (this.stopped) return;
    this.ui.state('offline', this.retry);
    this.timer = setTimeout(() => this.connect(), this.retry * (0.75 + Math.random() / 2));
    this.retry = Math.min(RETRY_MAX, this.retry * 2);
  }

  /** @param {string} data */
  receive(data) {
    /** @type {SyncMessage} */
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg.type === 'config') this.config(msg);
    else if (msg.type === 'error') this.refused(msg);
    // "set" announces the config that follows it: nothing to do.
  }

  /**
   * config applies the server's settings. A config "from" this client is
   * the server accepting the oldest set in flight.
   * @param {SyncMessage} msg
   */
  config(msg) {
    if (msg.you) {
      this.me = msg.you;
      this.retry = RETRY_MIN;
      this.ui.state('live');
    }
    this.known = this.serverTexts(msg.config?.settings ?? {});
    if (msg.you) this.keepUnsaved();
    const accepted = msg.from && msg.from === this.me ? this.answered() : '';
    if (accepted) {
      this.wanted.delete(accepted);
      // Progress: a value refused earlier may be allowed now (sendRate
      // after tickRate came down).
      for (const w of this.wanted.values()) if (w.state === 'refused') w.state = 'queued';
      this.ui.error('');
    }
    this.follow();
    this.flush();
    if (msg.rev !== undefined && msg.rev !== this.rev) {
      this.rev = msg.rev;
      this.ui.rev(msg.rev);
    }
  }

  // keepUnsaved wants again, on a new connection, each of the page's
  // unsaved changes that the server no longer holds: where the server has
  // the saved value, having forgotten the live change with its last client.
  keepUnsaved() {
    const saved = this.page.saved?.();
    const known = this.known;
    if (!saved || !known) return;
    const values = this.page.values();
    this.page.params.forEach((p, i) => {
      const mine = this.page.format(p.name, values[i]);
      const was = this.page.format(p.name, saved[i]);
      if (mine !== was && known.get(p.name) === was && !this.wanted.has(p.name)) {
        this.wanted.set(p.name, { text: mine, state: 'queued' });
      }
    });
  }

  /**
   * refused shows the server's error, which answers the oldest set in flight.
   * @param {SyncMessage} msg
   */
  refused(msg) {
    this.ui.error(msg.error ?? '');
    const w = this.wanted.get(this.answered());
    if (w) w.state = 'refused';
    if (![...this.wanted.values()].some((w) => w.state !== 'refused')) {
      // Nothing left that could make the refused values acceptable: follow
      // the server again.
      this.wanted.clear();
      this.follow();
    }
  }

  // answered takes the oldest set in flight off the list and returns its
  // name when it was the last send of a value still wanted, else "".
  answered() {
    const name = this.inflight.shift() ?? '';
    const w = this.wanted.get(name);
    return w && w.state === 'sent' && !this.inflight.includes(name) ? name : '';
  }

  /**
   * serverTexts converts a config's settings to text forms, as the page
   * formats its own values.
   * @param {Record<string, unknown>} settings
   */
  serverTexts(settings) {
    /** @type {Map<string, string>} */
    const out = new Map();
    for (const p of this.page.params) {
      const raw = settings[p.name];
      if (raw === undefined) continue;
      const r = fromJSON(this.page, p.name, raw);
      if (r.error === '') out.set(p.name, this.page.format(p.name, r.value));
    }
    return out;
  }

  // follow applies the server's settings to every setting not wanted locally.
  follow() {
    if (!this.known) return;
    this.applying = true;
    try {
      for (const p of this.page.params) {
        const text = this.known.get(p.name);
        if (text === undefined || this.wanted.has(p.name)) continue;
        const values = this.page.values();
        const i = this.page.params.indexOf(p);
        if (this.page.format(p.name, values[i]) !== text) this.page.set(p.name, this.page.parse(p.name, text).value);
      }
    } finally {
      this.applying = false;
    }
    this.seen = this.localTexts();
  }

  // flush sends the queued changes, at most once every SEND_EVERY ms.
  flush() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.me) return;
    const wait = this.lastSend + SEND_EVERY - performance.now();
    if (wait > 0) {
      clearTimeout(this.flushTimer);
      this.flushTimer = setTimeout(() => this.flush(), wait);
      return;
    }
    for (const [name, w] of this.wanted) {
      if (w.state !== 'queued') continue;
      this.ws.send(JSON.stringify({ type: 'set', name, value: w.text }));
      w.state = 'sent';
      this.inflight.push(name);
      this.lastSend = performance.now();
    }
  }
}
