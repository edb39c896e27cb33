// @ts-check
// Interp Lab's geckos.io client: follows a lab session's geckos knobs on a
// real @geckos.io/snapshot-interpolation SnapshotInterpolation, and
// streams the snapshots the game receives into the lab as a capture
// (docs/capture-protocol.md, version 1). Plain ESM, no dependencies: it
// runs in browsers and in Node 20 (node --experimental-websocket, or pass
// the `ws` package's WebSocket as options.WebSocket). See README.md.

/** The capture protocol version this client speaks. */
export const PROTOCOL = 1

/** The version of @geckos.io/snapshot-interpolation whose knobs it sets. */
export const GECKOS_VERSION = '1.1.1'

const CLIENT = 'interplab-geckos/1'

/**
 * @typedef {object} FollowOptions
 * @property {string} [token] the lab's access token, sent as
 *   "Authorization: Bearer TOKEN" (Node; a browser cannot send headers on a
 *   WebSocket: it uses the lab's sign-in instead).
 * @property {string} [name] the trace the capture becomes (a-z, 0-9, . _ -).
 * @property {number} [rate] snapshots a second the game receives (Hz), shown
 *   on the lab's page; default the session's geckos.serverFPS, else 20.
 * @property {boolean} [capture] stream a capture (default true); false only
 *   follows the settings.
 * @property {number} [flushMs] how often batches go out, ms (default 100).
 * @property {number} [maxBuffer] the most updates kept unsent (default
 *   20000); beyond, the oldest are dropped and counted.
 * @property {typeof WebSocket} [WebSocket] the WebSocket class (default
 *   globalThis.WebSocket).
 * @property {(line: string) => void} [log] where log lines go (default
 *   console.warn).
 * @property {(settings: Record<string, unknown>) => void} [onSettings]
 *   called after each configuration from the lab is applied.
 * @property {() => number} [now] the client's clock in ms (default
 *   SnapshotInterpolation's Now, else Date.now).
 */

/**
 * @typedef {object} Saved
 * @property {string} trace the trace's name in the lab
 * @property {number} updates updates the lab stored
 * @property {number} dropped updates this client dropped
 */

/**
 * Follows the lab session at sessionURL (the page's address,
 * http://HOST/s/ID) with snapshotInterpolation, a real SnapshotInterpolation.
 * @param {string} sessionURL
 * @param {any} snapshotInterpolation
 * @param {FollowOptions} [options]
 */
export function follow (sessionURL, snapshotInterpolation, options = {}) {
  return new Follower(sessionURL, snapshotInterpolation, options)
}

/** Knob limits, as the lab's parameter table has them. */
const KNOBS = {
  'geckos.serverFPS': { min: 0, max: 128 },
  'geckos.interpolationBuffer': { min: -1, max: 2000 },
  'geckos.vaultSize': { min: 1, max: 1000, int: true },
  'geckos.autoCorrectTimeOffset': { bool: true }
}

/**
 * Applies the session's geckos knobs to si, in the export's names and
 * units: interpolationBuffer.set(ms), or 3000/serverFPS ms (100 ms without
 * a serverFPS) when interpolationBuffer is -1 (not set), as the
 * constructor would; vault.setMaxSize(vaultSize);
 * config.autoCorrectTimeOffset. A value it cannot apply is logged and
 * left as it was. Returns the names it changed.
 * @param {any} si
 * @param {Record<string, unknown>} settings
 * @param {Record<string, unknown>} applied the values applied so far (updated)
 * @param {(line: string) => void} log
 */
export function applyGeckos (si, settings, applied, log) {
  /** @type {string[]} */
  const changed = []
  /** @type {Record<string, any>} */
  const ok = {}
  for (const [name, rule] of Object.entries(KNOBS)) {
    if (!(name in settings)) continue
    const v = settings[name]
    if (v === applied[name]) continue
    let why = ''
    if ('bool' in rule) {
      if (typeof v !== 'boolean') why = 'want true or false'
    } else if (typeof v !== 'number' || !Number.isFinite(v) || v < rule.min || v > rule.max || (rule.int && !Number.isInteger(v))) {
      why = `want ${rule.int ? 'a whole number' : 'a number'} in [${rule.min}, ${rule.max}]`
    }
    if (why) {
      log(`interplab: refused ${name} = ${JSON.stringify(v)}: ${why}; kept ${JSON.stringify(applied[name])}`)
      applied[name] = v // said once, not at every configuration
      continue
    }
    ok[name] = v
  }
  const fps = 'geckos.serverFPS' in ok ? ok['geckos.serverFPS'] : applied['geckos.serverFPS']
  const ib = 'geckos.interpolationBuffer' in ok ? ok['geckos.interpolationBuffer'] : applied['geckos.interpolationBuffer']
  if ('geckos.serverFPS' in ok || 'geckos.interpolationBuffer' in ok) {
    const ms = typeof ib === 'number' && ib >= 0 ? ib : (typeof fps === 'number' && fps > 0 ? 3000 / fps : 100)
    if (si && si.interpolationBuffer && typeof si.interpolationBuffer.set === 'function') {
      si.interpolationBuffer.set(ms)
      for (const n of ['geckos.serverFPS', 'geckos.interpolationBuffer']) {
        if (n in ok) { applied[n] = ok[n]; changed.push(n) }
      }
    } else {
      log('interplab: refused geckos.interpolationBuffer: this SnapshotInterpolation has no interpolationBuffer.set')
    }
  }
  if ('geckos.vaultSize' in ok) {
    if (si && si.vault && typeof si.vault.setMaxSize === 'function') {
      si.vault.setMaxSize(ok['geckos.vaultSize'])
      applied['geckos.vaultSize'] = ok['geckos.vaultSize']
      changed.push('geckos.vaultSize')
    } else {
      log('interplab: refused geckos.vaultSize: this SnapshotInterpolation has no vault.setMaxSize')
      applied['geckos.vaultSize'] = ok['geckos.vaultSize']
    }
  }
  if ('geckos.autoCorrectTimeOffset' in ok) {
    if (si && si.config && typeof si.config === 'object') {
      si.config.autoCorrectTimeOffset = ok['geckos.autoCorrectTimeOffset']
      changed.push('geckos.autoCorrectTimeOffset')
    } else {
      log('interplab: refused geckos.autoCorrectTimeOffset: this SnapshotInterpolation has no config')
    }
    applied['geckos.autoCorrectTimeOffset'] = ok['geckos.autoCorrectTimeOffset']
  }
  return changed
}

/** Close codes after which reconnecting cannot help (the protocol's table). */
const FINAL = new Set([1002, 1003, 1007, 1008, 1009, 4000, 4404, 4409, 4413])

const MAGIC = [0x69, 0x6c, 0x63, 0x31] // "ilc1"

/** A monotonic clock in ms, for the rate the lab allows (not the capture's times). */
const tick = () => (globalThis.performance ? globalThis.performance.now() : Date.now())

class Follower {
  /**
   * @param {string} sessionURL
   * @param {any} si
   * @param {FollowOptions} options
   */
  constructor (sessionURL, si, options) {
    const u = new URL(sessionURL)
    const m = u.pathname.match(/^\/s\/([^/]+)/) || u.pathname.match(/^\/ws\/sessions\/([^/]+)/)
    if (!m) throw new Error(`interplab: ${sessionURL} is not a session's address (http://HOST/s/ID)`)
    const base = (u.protocol === 'https:' || u.protocol === 'wss:' ? 'wss://' : 'ws://') + u.host + '/ws/sessions/' + m[1]
    this.settingsURL = base + '?engine=geckos&version=' + GECKOS_VERSION + '&client=' + encodeURIComponent(CLIENT)
    this.captureURL = base + '/capture'
    this.si = si
    this.opt = options
    this.WS = options.WebSocket || globalThis.WebSocket
    if (!this.WS) throw new Error('interplab: no WebSocket: run Node 20 with --experimental-websocket, or pass options.WebSocket (the ws package)')
    this.log = options.log || ((line) => console.warn(line))
    this.now = options.now || (() => (si && si.constructor && typeof si.constructor.Now === 'function' ? si.constructor.Now() : Date.now()))
    /** @type {Record<string, unknown>} */
    this.applied = {}
    /** @type {Record<string, unknown> | null} */
    this.settings = null
    this.closed = false

    // The capture: updates not yet sent, batches sent and not yet
    // acknowledged (kept to resend after a reconnection).
    this.capturing = options.capture !== false
    this.maxBuffer = options.maxBuffer || 20000
    /** @type {{id: number, sent: number, arrive: number, x: number, y: number, z: number, q: number[] | null}[]} */
    this.pending = []
    /** @type {{n: number, count: number, bytes: Uint8Array}[]} */
    this.unacked = []
    /** @type {Map<string, number>} */
    this.ids = new Map()
    this.dropped = 0
    this.nextBatch = 1
    this.acked = 0
    this.stored = 0
    this.lastArrive = -Infinity
    /** @type {string | null} */
    this.captureID = null
    this.welcome = null
    this.ceiling = 0
    this.budget = 0
    this.budgetAt = 0
    /** @type {((v: Saved | null) => void) | null} */
    this.onSaved = null
    this.ending = false
    this.endSent = false
    this.final = false

    this.settingsSocket = null
    this.captureSocket = null
    this.waits = { settings: 500, capture: 500 }
    this.connectSettings()
    if (this.capturing) {
      this.timer = setInterval(() => this.flush(), options.flushMs || 100)
    }
  }

  /** @returns {Record<string, string>|undefined} */
  headers () {
    return this.opt.token ? { Authorization: 'Bearer ' + this.opt.token } : undefined
  }

  /** @param {string} url */
  open (url) {
    const h = this.headers()
    // A browser's WebSocket takes protocols as its second argument: the
    // headers go only to clients that take them (Node's, the ws package).
    const ws = h ? new this.WS(url, /** @type {any} */ ({ headers: h })) : new this.WS(url)
    ws.binaryType = 'arraybuffer'
    return ws
  }

  /**
   * Reconnects after a wait that doubles from 0.5 s to 30 s, half of it at
   * random; reset once connected.
   * @param {'settings'|'capture'} which
   */
  retry (which) {
    if (this.closed && which === 'settings') return
    const wait = this.waits[which]
    this.waits[which] = Math.min(30000, wait * 2)
    const t = wait / 2 + Math.random() * wait / 2
    this.log(`interplab: ${which} connection lost; reconnecting in ${Math.round(t)} ms`)
    setTimeout(() => (which === 'settings' ? this.connectSettings() : this.connectCapture()), t)
  }

  connectSettings () {
    if (this.closed) return
    const ws = this.open(this.settingsURL)
    this.settingsSocket = ws
    ws.onmessage = (/** @type {MessageEvent} */ ev) => {
      if (typeof ev.data !== 'string') return
      let msg
      try { msg = JSON.parse(ev.data) } catch { return }
      if (msg.type === 'config' && msg.config && msg.config.settings) {
        this.waits.settings = 500
        this.settings = msg.config.settings
        applyGeckos(this.si, msg.config.settings, this.applied, this.log)
        if (this.capturing && !this.captureSocket && !this.final) this.connectCapture()
        if (this.opt.onSettings) this.opt.onSettings(msg.config.settings)
      } else if (msg.type === 'error') {
        this.log(`interplab: the lab refused: ${msg.error}`)
      }
    }
    ws.onclose = (/** @type {CloseEvent} */ ev) => {
      if (this.settingsSocket !== ws) return
      this.settingsSocket = null
      if (this.closed) return
      if (ev.code === 4404) {
        this.log('interplab: the session does not exist or was deleted: not following it')
        return
      }
      this.retry('settings')
    }
    ws.onerror = () => {}
  }

  connectCapture () {
    if (this.closed && !this.ending) return
    if (this.final) return
    const ws = this.open(this.captureURL)
    this.captureSocket = ws
    ws.onopen = () => {
      const fps = this.settings && typeof this.settings['geckos.serverFPS'] === 'number' ? this.settings['geckos.serverFPS'] : 0
      /** @type {Record<string, unknown>} */
      const hello = { type: 'hello', protocol: PROTOCOL, engine: 'geckos', version: GECKOS_VERSION, client: CLIENT,
        rate: this.opt.rate || (fps > 0 ? fps : 20) }
      if (this.captureID) hello.capture = this.captureID
      else if (this.opt.name) hello.name = this.opt.name
      ws.send(JSON.stringify(hello))
    }
    ws.onmessage = (/** @type {MessageEvent} */ ev) => {
      if (typeof ev.data !== 'string') return
      let msg
      try { msg = JSON.parse(ev.data) } catch { return }
      switch (msg.type) {
        case 'welcome':
          this.waits.capture = 500
          this.welcome = msg
          this.captureID = msg.capture
          this.ceiling = msg.rate
          this.budget = msg.maxBatch
          this.budgetAt = tick()
          this.ack(msg.acked)
          for (const b of this.unacked) ws.send(b.bytes) // resend what the lab has not stored
          if (this.ending) this.flush()
          break
        case 'ack':
          this.stored = msg.updates
          this.ack(msg.batch)
          if (this.ending) this.flush()
          break
        case 'slow':
          this.ceiling = msg.rate
          break
        case 'saved':
          this.final = true
          if (this.onSaved) this.onSaved({ trace: msg.trace, updates: msg.updates, dropped: msg.dropped })
          break
        case 'error':
          this.log(`interplab: the lab refused the capture: ${msg.error}`)
          break
      }
    }
    ws.onclose = (/** @type {CloseEvent} */ ev) => {
      if (this.captureSocket !== ws) return
      this.captureSocket = null
      this.welcome = null
      if (this.final) return
      if (FINAL.has(ev.code)) {
        this.final = true
        this.log(`interplab: the capture stopped (close ${ev.code}${ev.reason ? ': ' + ev.reason : ''})`)
        if (this.onSaved) this.onSaved(null)
        return
      }
      this.retry('capture')
    }
    ws.onerror = () => {}
  }

  /** @param {number} n the last batch the lab stored */
  ack (n) {
    this.acked = Math.max(this.acked, n)
    while (this.unacked.length > 0 && this.unacked[0].n <= this.acked) this.unacked.shift()
  }

  /**
   * Adds a snapshot the game received to the capture: every entity of its
   * state (an array, or an object of arrays), with its x, y, z (0 when
   * absent) and its q quaternion {x, y, z, w} when it has one; sent is the
   * snapshot's time, arrive now. Never blocks: beyond maxBuffer unsent
   * updates the oldest are dropped and counted.
   * @param {{time: number, state: any}} snapshot
   */
  record (snapshot) {
    if (!this.capturing || this.final || this.ending) return
    const arrive = Math.max(this.lastArrive, this.now() / 1000)
    this.lastArrive = arrive
    const sent = snapshot.time / 1000
    const state = snapshot.state
    const groups = Array.isArray(state) ? [['', state]] : Object.entries(state || {})
    for (const [group, list] of groups) {
      if (!Array.isArray(list)) continue
      for (const e of list) {
        const key = group + '/' + String(e.id)
        let id = this.ids.get(key)
        if (id === undefined) {
          id = this.ids.size
          this.ids.set(key, id)
        }
        const q = e.q && typeof e.q === 'object' ? [e.q.x, e.q.y, e.q.z, e.q.w] : null
        this.pending.push({ id, sent, arrive, x: +e.x || 0, y: +e.y || 0, z: +e.z || 0, q })
      }
    }
    const over = this.pending.length - this.maxBuffer
    if (over > 0) {
      this.pending.splice(0, over)
      this.dropped += over
    }
  }

  /** Sends what the window and the ceiling allow, in batches. */
  flush () {
    const ws = this.captureSocket
    if (!ws || !this.welcome || ws.readyState !== 1) return
    const w = this.welcome
    const now = tick()
    this.budget = Math.min(this.ceiling + w.maxBatch, this.budget + (now - this.budgetAt) / 1000 * this.ceiling)
    this.budgetAt = now
    while (this.pending.length > 0 && this.unacked.length < w.window) {
      const n = Math.min(this.pending.length, w.maxBatch, Math.floor(this.budget))
      if (n < 1) break
      const bytes = this.encode(this.nextBatch, this.pending.splice(0, n))
      this.unacked.push({ n: this.nextBatch, count: n, bytes })
      this.nextBatch++
      this.budget -= n
      ws.send(bytes)
    }
    if (this.ending && this.pending.length === 0 && this.unacked.length === 0 && !this.endSent) {
      this.endSent = true
      ws.send(JSON.stringify({ type: 'end', dropped: this.dropped }))
    }
  }

  /**
   * The batch frame of the protocol.
   * @param {number} n
   * @param {{id: number, sent: number, arrive: number, x: number, y: number, z: number, q: number[] | null}[]} us
   */
  encode (n, us) {
    let size = 16
    for (const u of us) size += u.q ? 77 : 45
    const buf = new ArrayBuffer(size)
    const v = new DataView(buf)
    MAGIC.forEach((b, i) => v.setUint8(i, b))
    v.setUint32(4, n, true)
    v.setUint32(8, us.length, true)
    v.setUint32(12, this.dropped, true)
    let o = 16
    for (const u of us) {
      v.setUint32(o, u.id, true)
      v.setUint8(o + 4, u.q ? 2 : 0)
      o += 5
      for (const x of [u.sent, u.arrive, u.x, u.y, u.z]) { v.setFloat64(o, x, true); o += 8 }
      if (u.q) for (const x of u.q) { v.setFloat64(o, x, true); o += 8 }
    }
    return new Uint8Array(buf)
  }

  /** What the client has done so far. */
  get stats () {
    return { capture: this.captureID, pending: this.pending.length, unacked: this.unacked.length,
      acked: this.acked, stored: this.stored, dropped: this.dropped, ceiling: this.ceiling }
  }

  /**
   * Flushes what was recorded, ends the capture (it becomes a trace in the
   * lab) and stops following. Resolves with the saved trace, or null when
   * there was no capture or it could not be saved (the log says why);
   * waits at most timeoutMs.
   * @param {number} [timeoutMs]
   * @returns {Promise<Saved | null>}
   */
  close (timeoutMs = 30000) {
    this.closed = true
    const done = () => {
      if (this.timer) clearInterval(this.timer)
      if (this.settingsSocket) { const s = this.settingsSocket; this.settingsSocket = null; s.close(1000) }
    }
    if (!this.capturing || this.final || (this.nextBatch === 1 && this.pending.length === 0)) {
      done()
      const s = this.captureSocket
      this.captureSocket = null
      if (s) s.close(1000)
      return Promise.resolve(null)
    }
    this.ending = true
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.log('interplab: the capture did not end in time'); finish(null) }, timeoutMs)
      /** @param {Saved | null} v */
      const finish = (v) => {
        clearTimeout(t)
        this.onSaved = null
        this.final = true
        done()
        const s = this.captureSocket
        this.captureSocket = null
        if (s) s.close(1000)
        resolve(v)
      }
      this.onSaved = finish
      if (!this.captureSocket) this.connectCapture()
      this.flush()
    })
  }
}
