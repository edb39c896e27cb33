// @ts-check
// canvas.js draws the top view: the ground truth as a ghost, each technique's
// displayed entity in its colour with a short trail, and the packets of the
// focus entity where the server sent them (lost ones crossed). The ground is
// the engine's x–y plane (z is up); heading (1, 0) faces +x.

import { techColor, rgba32 } from './colors.js';
import { context2d } from './dom.js';

/** @typedef {{sent: number, x: number, y: number, lost: boolean, dup: boolean}} SentPacket */

const TRAIL = 48; // trail points kept per entity and row (0.8 s at 60 Hz)
const TRACK_ALL = 64; // up to this many entities every one has a trail
const DOTS_ABOVE = 300; // above this many entities the view draws dots
const PACKET_AGE = 2; // seconds of sent packets shown
const BG = '#0d1117';
const NEAR = 0.25; // px: a camera this close to its target is there
const FOCUS = '#e6edf3'; // the focus ring and its number
const FOCUS32 = rgba32(FOCUS);
const BG32 = rgba32(BG);

/**
 * VIEW_CONTEXT is how the canvases redrawn every frame ask for their 2D
 * context: opaque, and willReadFrequently, which every engine takes as
 * "keep this canvas in memory and draw it on the CPU". A frame of the lab
 * is a few hundred small anti-aliased strokes and fills (and, with
 * thousands of entities, one putImageData): cheap for a CPU rasteriser,
 * while a GPU-backed canvas pays per draw call and per state change. Where
 * the GPU is emulated (WebKitGTK on Mesa's llvmpipe, a machine without a
 * graphics card) that cost was 100 ms a frame: the view's 36 entities took
 * 40 ms, against 3.5 ms drawn on the CPU.
 * @type {CanvasRenderingContext2DSettings}
 */
export const VIEW_CONTEXT = { alpha: false, willReadFrequently: true };

/**
 * Labels draws the short texts a canvas repeats from frame to frame (the
 * focus entity's number, the scale's length, the timeline's network
 * scale) from small images, each drawn once. fillText on a canvas in the
 * page has Chromium bring the canvas's style, and with it the page's
 * layout, up to date first: in an animation frame after anything on the
 * page changed (a slider's readout while the designer drags it), that
 * was a layout in the frame's own callback, before the frame's style and
 * layout (TestBrowserFramesForceNoLayout). Text drawn on an
 * OffscreenCanvas touches no page.
 */
export class Labels {
  constructor() {
    /** @type {Map<string, {image: OffscreenCanvas | HTMLCanvasElement, ox: number, oy: number, metrics: TextMetrics}>} */
    this.images = new Map();
    /** @type {OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null} measures a label before its image is sized */
    this.probe = null;
  }

  /**
   * draw writes text on ctx as fillText(text, x, y) would with ctx's
   * textBaseline, left-aligned, in font (its size first, in px) and
   * color, and returns the text's metrics.
   * @param {CanvasRenderingContext2D} ctx
   * @param {string} text
   * @param {string} font
   * @param {string} color
   * @param {number} x
   * @param {number} y
   */
  draw(ctx, text, font, color, x, y) {
    const baseline = ctx.textBaseline;
    const key = `${font}\n${color}\n${baseline}\n${text}`;
    let l = this.images.get(key);
    if (!l) {
      // The few labels in use change rarely (a zoom, a new focus, the
      // network scale): a full cache is a stale one.
      if (this.images.size >= 64) this.images.clear();
      const px = parseFloat(font) || 12;
      const pad = Math.ceil(px / 2);
      const oy = Math.ceil(px * 1.5); // room above and below the anchor whatever the baseline
      const probe = (this.probe ??= labelCanvas(1, 1).getContext('2d'));
      if (!probe) throw new Error('no 2D context for a label');
      probe.font = font;
      const metrics = probe.measureText(text);
      const image = labelCanvas(Math.ceil(metrics.width) + 2 * pad, 2 * oy);
      const c = image.getContext('2d');
      if (!c) throw new Error('no 2D context for a label');
      c.font = font;
      c.fillStyle = color;
      c.textBaseline = baseline;
      c.fillText(text, pad, oy);
      l = { image, ox: pad, oy, metrics };
      this.images.set(key, l);
    }
    ctx.drawImage(l.image, Math.round(x) - l.ox, Math.round(y) - l.oy);
    return l.metrics;
  }
}

/**
 * labelCanvas is a w×h canvas outside the page: an OffscreenCanvas, or a
 * canvas element never inserted where there is none.
 * @param {number} w
 * @param {number} h
 * @returns {OffscreenCanvas | HTMLCanvasElement}
 */
function labelCanvas(w, h) {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(w, h);
  return Object.assign(document.createElement('canvas'), { width: w, height: h });
}

export class View {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {(entity: number) => void} onFocus called when an entity is clicked
   */
  constructor(canvas, onFocus) {
    this.canvas = canvas;
    // Opaque: every frame paints the whole canvas, and the browser then
    // composites it without blending (with the A/B view's second canvas,
    // 54.6 → 58 fps at 10,000 entities in make bench-browser). Drawn on
    // the CPU (VIEW_CONTEXT): see there.
    this.ctx = context2d(canvas, VIEW_CONTEXT);
    this.onFocus = onFocus;
    this.stride = 6;
    /** @type {string[]} */
    this.techs = [];
    this.entities = 0;
    this.focus = 0;
    this.dots = false; // the stress view
    /** @type {'fit' | 'follow'} 'fit' frames every entity; 'follow' centres the focus at a chosen zoom */
    this.mode = 'fit';
    this.cx = 0;
    this.cy = 0;
    this.scale = 20; // px per metre
    /** @type {SentPacket[]} the focus entity's */
    this.packets = [];
    /** @type {Float32Array} no poses yet: a new run's, before its first frame */
    this.none = new Float32Array(0);
    /** @type {Float32Array} the latest frame's poses, as update took them (read them through poses) */
    this.own = this.none;
    /**
     * @type {(() => Float32Array) | null} where the poses come from when
     * update takes a view onto the engine's memory (the page's: engine.js
     * Pull): such a view reads empty once the memory has grown, and the
     * reload gives it again
     */
    this.reload = null;
    this.dpr = 1;
    this.tracked = 1; // entities with a trail
    this.trail = new Float32Array(0);
    this.trailLen = 0;
    this.trailHead = 0;
    /** @type {string[]} the colour of each row: the truth, then the techniques */
    this.colors = [];
    /** @type {number[]} */
    this.colors32 = [];
    this.settled = false;
    this.labels = new Labels(); // the focus number and the scale's length (Labels)
    /** @type {ImageData | null} the stress view's pixels */
    this.image = null;
    /** where the last frame drew the scale bar and its label, CSS pixels of the canvas: what an overlay must keep clear of */
    this.scaleBox = { x: 0, y: 0, w: 0, h: 0 };
    this.pixels = new Uint32Array(0);
    // dirty says the next draw has something new to show: a frame, a
    // packet, a focus, zoom or colour, a new size. A frame that shows what
    // the canvas already holds is not drawn again, so the browser has no
    // canvas to repaint and composite: a paused run or a run rendering
    // below the display's rate costs nothing on the frames in between.
    this.dirty = true;
    /** @type {boolean | undefined} whether the last frame drawn was the stress view's dots */
    this.drawnDots = undefined;
    // The canvas takes its size at its first draw, and from the observer
    // (which reads it once layout is done), never here: reading the size
    // while the page is still being built forced a layout of the whole
    // page, once per view, before the first frame (about 45 ms each in
    // Chromium's cold start at 1440×900).
    this.sized = false;
    new ResizeObserver(() => this.resize()).observe(canvas);
    canvas.addEventListener('click', (e) => this.click(e));
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.zoom(e.deltaY < 0 ? 1.2 : 1 / 1.2);
    }, { passive: false });
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.image = null;
      this.dirty = true;
    }
    if (dpr !== this.dpr) this.dirty = true;
    this.dpr = dpr;
    this.sized = true;
  }

  /**
   * reset starts a new run: techniques in row order, entity count, pose stride.
   * @param {string[]} techs
   * @param {number} entities
   * @param {number} stride
   */
  reset(techs, entities, stride) {
    this.techs = techs;
    this.entities = entities;
    this.stride = stride;
    this.focus = Math.min(this.focus, entities - 1);
    this.packets = [];
    this.tracked = entities <= TRACK_ALL ? entities : 1;
    this.trail = new Float32Array((techs.length + 1) * this.tracked * TRAIL * 2);
    this.trailLen = 0;
    this.trailHead = 0;
    this.recolor();
    this.own = this.none;
    this.settled = false; // the camera jumps to the new run
    this.dirty = true;
  }

  // recolor reads the techniques' colours again (the theme changed).
  recolor() {
    this.colors = ['truth', ...this.techs].map((t) => techColor(t));
    this.colors32 = this.colors.map((c) => rgba32(c));
    this.dirty = true;
  }

  /** @param {number} i */
  setFocus(i) {
    this.focus = i;
    this.packets = [];
    if (this.tracked === 1) this.trailLen = 0;
    this.dirty = true;
  }

  /** @returns {Float32Array} the latest frame's poses (empty before the first) */
  get poses() {
    if (this.own.length === 0 && this.own !== this.none && this.reload) this.own = this.reload();
    return this.own;
  }

  /**
   * update takes a new frame's poses (interplab.poses) and, if trail, extends the trails.
   * @param {Float32Array} poses
   * @param {boolean} trail
   */
  update(poses, trail) {
    this.own = poses;
    this.dirty = true;
    if (!trail) return;
    const rows = this.techs.length + 1;
    const h = this.trailHead;
    for (let r = 0; r < rows; r++) {
      for (let k = 0; k < this.tracked; k++) {
        const e = this.tracked === 1 ? this.focus : k;
        const o = (r * this.entities + e) * this.stride;
        const t = ((r * this.tracked + k) * TRAIL + h) * 2;
        this.trail[t] = poses[o];
        this.trail[t + 1] = poses[o + 1];
      }
    }
    this.trailHead = (h + 1) % TRAIL;
    this.trailLen = Math.min(this.trailLen + 1, TRAIL);
  }

  /**
   * addPackets takes n packet records (interplab.timeline layout) of the focus entity.
   * @param {Float64Array} pk
   * @param {number} n
   * @param {number} stride
   * @param {number} now
   */
  addPackets(pk, n, stride, now) {
    if (n > 0) this.dirty = true;
    for (let i = 0; i < n; i++) {
      const o = i * stride;
      this.packets.push({ sent: pk[o + 1], lost: Number.isNaN(pk[o + 3]), dup: pk[o + 4] !== 0, x: pk[o + 5], y: pk[o + 6] });
    }
    const old = this.packets.findIndex((p) => p.sent >= now - PACKET_AGE);
    if (old > 0) this.packets.splice(0, old);
  }

  /** @param {number} f */
  zoom(f) {
    this.mode = 'follow';
    this.scale = Math.min(2000, Math.max(0.05, this.scale * f));
    this.dirty = true;
  }

  fit() {
    this.mode = 'fit';
    this.dirty = true;
  }

  // camera moves the view towards its target: every entity, or the focus.
  // It returns whether the view moved (the camera eases in, so it moves
  // for a while after its target stops).
  camera() {
    const p = this.poses;
    const s = this.stride;
    const w = this.canvas.width;
    const h = this.canvas.height;
    let tx;
    let ty;
    let ts = this.scale;
    if (this.mode === 'fit') {
      let x0 = Infinity;
      let y0 = Infinity;
      let x1 = -Infinity;
      let y1 = -Infinity;
      for (let e = 0; e < this.entities; e++) {
        const x = p[e * s];
        const y = p[e * s + 1];
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      if (!(x1 >= x0)) return false;
      tx = (x0 + x1) / 2;
      ty = (y0 + y1) / 2;
      const span = Math.max(x1 - x0, (y1 - y0) * (w / h), 4);
      ts = (w * 0.8) / span;
    } else {
      tx = p[this.focus * s];
      ty = p[this.focus * s + 1];
      if (tx === undefined) return false;
    }
    const { cx, cy, scale } = this;
    const half = Math.max(this.canvas.width, this.canvas.height) / 2;
    if (Math.abs(tx - cx) * scale < NEAR && Math.abs(ty - cy) * scale < NEAR && Math.abs(ts - scale) * half < NEAR) {
      // Within a fraction of a pixel: there, so that the view stops
      // moving (easing alone only ever comes closer).
      this.cx = tx;
      this.cy = ty;
      this.scale = ts;
    } else {
      const k = this.settled ? 0.15 : 1;
      this.cx += (tx - cx) * k;
      this.cy += (ty - cy) * k;
      this.scale += (ts - scale) * k;
    }
    this.settled = true;
    return this.cx !== cx || this.cy !== cy || this.scale !== scale;
  }

  /** @param {number} x */
  sx(x) {
    return this.canvas.width / 2 + (x - this.cx) * this.scale;
  }

  /** @param {number} y */
  sy(y) {
    return this.canvas.height / 2 - (y - this.cy) * this.scale;
  }

  /**
   * draw renders the latest frame at server time now.
   * @param {number} now
   */
  draw(now) {
    if (this.entities === 0 || this.poses.length === 0) return;
    if (!this.sized) this.resize();
    const moved = this.camera();
    const ctx = this.ctx;
    const useDots = this.dots || this.entities > DOTS_ABOVE;
    if (!moved && !this.dirty && useDots === this.drawnDots) return;
    this.dirty = false;
    this.drawnDots = useDots;
    if (useDots) {
      this.drawDots();
    } else {
      ctx.fillStyle = BG;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
      this.drawGrid();
      this.drawPackets(now);
      this.drawTrails();
      this.drawEntities();
    }
    this.drawScale();
  }

  drawGrid() {
    const ctx = this.ctx;
    const step = niceStep(60 * this.dpr / this.scale);
    const w = this.canvas.width;
    const h = this.canvas.height;
    const x0 = this.cx - w / 2 / this.scale;
    const y0 = this.cy - h / 2 / this.scale;
    ctx.lineWidth = 1;
    ctx.strokeStyle = 'rgba(139, 148, 158, 0.12)';
    ctx.beginPath();
    for (let x = Math.ceil(x0 / step) * step; x < x0 + w / this.scale; x += step) {
      const px = Math.round(this.sx(x)) + 0.5;
      ctx.moveTo(px, 0);
      ctx.lineTo(px, h);
    }
    for (let y = Math.ceil(y0 / step) * step; y < y0 + h / this.scale; y += step) {
      const py = Math.round(this.sy(y)) + 0.5;
      ctx.moveTo(0, py);
      ctx.lineTo(w, py);
    }
    ctx.stroke();
  }

  drawScale() {
    const ctx = this.ctx;
    const d = this.dpr;
    const step = niceStep(100 * d / this.scale);
    const len = step * this.scale;
    const x = 14 * d;
    const y = this.canvas.height - 14 * d;
    ctx.strokeStyle = '#8b949e';
    ctx.fillStyle = '#8b949e';
    ctx.lineWidth = d;
    ctx.beginPath();
    ctx.moveTo(x, y - 4 * d);
    ctx.lineTo(x, y);
    ctx.lineTo(x + len, y);
    ctx.lineTo(x + len, y - 4 * d);
    ctx.stroke();
    const label = step >= 1 ? `${step} m` : `${Math.round(step * 100)} cm`;
    const m = this.labels.draw(ctx, label, this.labelFont(), '#8b949e', x + len + 6 * d, y);
    const top = Math.min(y - 4 * d, y - m.actualBoundingBoxAscent);
    const bottom = Math.max(y + d, y + m.actualBoundingBoxDescent);
    this.scaleBox = { x: x / d, y: top / d, w: (len + 6 * d + m.width) / d, h: (bottom - top) / d };
  }

  /** @param {number} now */
  drawPackets(now) {
    const ctx = this.ctx;
    const d = this.dpr;
    for (const p of this.packets) {
      const age = Math.min(1, Math.max(0, (now - p.sent) / PACKET_AGE));
      const x = this.sx(p.x);
      const y = this.sy(p.y);
      ctx.globalAlpha = 1 - 0.8 * age;
      if (p.lost) {
        ctx.strokeStyle = '#f85149';
        ctx.lineWidth = 1.5 * d;
        const r = 4 * d;
        ctx.beginPath();
        ctx.moveTo(x - r, y - r);
        ctx.lineTo(x + r, y + r);
        ctx.moveTo(x + r, y - r);
        ctx.lineTo(x - r, y + r);
        ctx.stroke();
      } else {
        ctx.fillStyle = '#c9d1d9';
        ctx.fillRect(x - 1.5 * d, y - 1.5 * d, 3 * d, 3 * d);
        if (p.dup) {
          ctx.strokeStyle = '#c9d1d9';
          ctx.lineWidth = d;
          ctx.strokeRect(x - 4 * d, y - 4 * d, 8 * d, 8 * d);
        }
      }
    }
    ctx.globalAlpha = 1;
  }

  drawTrails() {
    const ctx = this.ctx;
    const rows = this.techs.length + 1;
    if (this.trailLen < 2) return;
    // One CSS pixel wide, so one device pixel on a display of one device
    // pixel per CSS pixel (two on a Retina one, where the trails keep
    // their weight): Skia (WebKit's and Chromium's rasteriser on the CPU)
    // draws a stroke at most a pixel wide as a hairline, and outlines
    // anything wider with its stroker first: 36 trails at 1.5 px cost
    // WebKit 4–6 ms a frame, at 1 px 0.5 (TestBrowserDrawCalls).
    ctx.lineWidth = this.dpr;
    // Bevelled, not round: a trail is 48 short segments, and a round join
    // at each cost a rasteriser on the CPU twice the stroke (WebKit's, with
    // Skia: 12 → 5–7 ms a frame for 36 trails), for no difference one can
    // see at this width.
    ctx.lineJoin = 'bevel';
    for (let r = 0; r < rows; r++) {
      ctx.strokeStyle = this.colors[r];
      ctx.globalAlpha = r === 0 ? 0.35 : 0.55;
      ctx.beginPath();
      for (let k = 0; k < this.tracked; k++) {
        const base = (r * this.tracked + k) * TRAIL;
        for (let i = 0; i < this.trailLen; i++) {
          const j = (this.trailHead - this.trailLen + i + TRAIL) % TRAIL;
          const x = this.sx(this.trail[(base + j) * 2]);
          const y = this.sy(this.trail[(base + j) * 2 + 1]);
          if (i === 0) ctx.moveTo(x, y);
          else ctx.lineTo(x, y);
        }
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }

  // drawEntities draws each row's entities with one path per display
  // mode (a fill and a stroke each) and one for their headings: a few draw
  // calls a row whatever the entity count, where one entity at a time cost
  // five calls and two state changes each.
  drawEntities() {
    const ctx = this.ctx;
    const p = this.poses;
    const s = this.stride;
    const d = this.dpr;
    const rad = Math.max(4 * d, Math.min(14 * d, 0.45 * this.scale));
    const rows = this.techs.length + 1;
    for (let r = 0; r < rows; r++) {
      ctx.strokeStyle = this.colors[r];
      ctx.fillStyle = this.colors[r];
      ctx.lineWidth = (r === 0 ? 1.5 : 2) * d;
      // 1 interpolating, 2 extrapolating (dashed); squares: 3 frozen, 4
      // held (dotted): the library drew nothing and the game keeps its
      // last pose.
      for (let mode = 1; mode <= 4; mode++) {
        let any = false;
        ctx.beginPath();
        for (let e = 0; e < this.entities; e++) {
          const o = (r * this.entities + e) * s;
          if (p[o + 5] !== mode) continue; // 0: nothing received yet
          const x = this.sx(p[o]);
          const y = this.sy(p[o + 1]);
          if (mode === 3 || mode === 4) {
            ctx.rect(x - rad, y - rad, 2 * rad, 2 * rad);
          } else {
            ctx.moveTo(x + rad, y);
            ctx.arc(x, y, rad, 0, 2 * Math.PI);
          }
          any = true;
        }
        if (!any) continue;
        ctx.setLineDash(mode === 2 ? [3 * d, 2 * d] : mode === 4 ? [1 * d, 2 * d] : []);
        if (r === 0) {
          ctx.globalAlpha = 0.7;
          ctx.stroke();
        } else {
          ctx.globalAlpha = 0.28;
          ctx.fill();
          ctx.globalAlpha = 0.95;
          ctx.stroke();
        }
      }
      ctx.setLineDash([]);
      ctx.globalAlpha = r === 0 ? 0.7 : 0.95;
      ctx.beginPath();
      for (let e = 0; e < this.entities; e++) {
        const o = (r * this.entities + e) * s;
        if (p[o + 5] === 0) continue;
        const x = this.sx(p[o]);
        const y = this.sy(p[o + 1]);
        ctx.moveTo(x, y);
        ctx.lineTo(x + p[o + 3] * rad * 1.6, y - p[o + 4] * rad * 1.6); // heading: cos and sin of the yaw
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    this.drawFocus(rad);
  }

  /**
   * drawFocus rings the focus entity's ground truth and writes its number.
   * @param {number} rad
   */
  drawFocus(rad) {
    const ctx = this.ctx;
    const d = this.dpr;
    const o = this.focus * this.stride;
    const fx = this.sx(this.poses[o]);
    const fy = this.sy(this.poses[o + 1]);
    ctx.strokeStyle = FOCUS;
    ctx.lineWidth = d;
    ctx.setLineDash([2 * d, 3 * d]);
    ctx.beginPath();
    ctx.arc(fx, fy, rad + 6 * d, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
    this.label(fx, fy, rad);
  }

  /**
   * label writes the focus entity's number beside its ring at (fx, fy).
   * @param {number} fx
   * @param {number} fy
   * @param {number} rad
   */
  label(fx, fy, rad) {
    const d = this.dpr;
    this.labels.draw(this.ctx, `#${this.focus}`, this.labelFont(), FOCUS, fx + rad + 8 * d, fy - rad - 4 * d);
  }

  /** labelFont is the font of the view's labels. */
  labelFont() {
    return `${11 * this.dpr}px ui-monospace, monospace`;
  }

  /**
   * ringPixels draws the focus ring into the stress view's pixels px (w
   * wide, h high): dashed, one device pixel wide per CSS pixel, radius r
   * around (fx, fy). A dashed arc stroked on the canvas after putImageData
   * cost a sixth of that view's drawing in a profile of the A/B page at
   * 10,000 entities (Skia dashes a path by cutting it into segments, then
   * strokes each); in the pixels it is some hundred stores.
   * @param {Uint32Array} px
   * @param {number} w
   * @param {number} h
   * @param {number} fx
   * @param {number} fy
   * @param {number} r
   */
  ringPixels(px, w, h, fx, fy, r) {
    const d = this.dpr;
    for (let k = 0; k < Math.max(1, Math.round(d)); k++) {
      const rk = r + k;
      const n = Math.ceil(2 * Math.PI * rk);
      for (let i = 0; i < n; i++) {
        // 2 px on, 3 off along the ring, in CSS pixels, as the dash was
        if ((i / d) % 5 >= 2) continue;
        const a = (2 * Math.PI * i) / n;
        const x = Math.round(fx + rk * Math.cos(a));
        const y = Math.round(fy + rk * Math.sin(a));
        if (x >= 0 && y >= 0 && x < w && y < h) px[y * w + x] = FOCUS32;
      }
    }
  }

  // drawDots plots every entity of every row as a 2×2 dot, straight into
  // the pixels: the stress view for thousands of entities.
  drawDots() {
    const w = this.canvas.width;
    const h = this.canvas.height;
    if (!this.image || this.image.width !== w || this.image.height !== h) {
      this.image = this.ctx.createImageData(w, h);
      this.pixels = new Uint32Array(this.image.data.buffer);
    }
    const image = this.image;
    const px = this.pixels;
    px.fill(BG32);
    const p = this.poses;
    const s = this.stride;
    const rows = this.techs.length + 1;
    const half = w / 2;
    const halfH = h / 2;
    for (let r = rows - 1; r >= 0; r--) {
      const c = this.colors32[r];
      for (let e = 0; e < this.entities; e++) {
        const o = (r * this.entities + e) * s;
        if (p[o + 5] === 0) continue;
        const x = (half + (p[o] - this.cx) * this.scale) | 0;
        const y = (halfH - (p[o + 1] - this.cy) * this.scale) | 0;
        if (x < 0 || y < 0 || x >= w - 1 || y >= h - 1) continue;
        const i = y * w + x;
        px[i] = c;
        px[i + 1] = c;
        px[i + w] = c;
        px[i + w + 1] = c;
      }
    }
    const rad = 6 * this.dpr;
    const fo = this.focus * s;
    const fx = this.sx(p[fo]);
    const fy = this.sy(p[fo + 1]);
    this.ringPixels(px, w, h, fx, fy, rad + 6 * this.dpr);
    this.ctx.putImageData(image, 0, 0);
    this.label(fx, fy, rad);
  }

  // needsHeadings says whether the view draws headings: the stress view's
  // dots have none, so the engine may leave them out (setHeadings).
  needsHeadings() {
    return !(this.dots || this.entities > DOTS_ABOVE);
  }

  /** @param {MouseEvent} e */
  click(e) {
    const rect = this.canvas.getBoundingClientRect();
    const x = (e.clientX - rect.left) * this.dpr;
    const y = (e.clientY - rect.top) * this.dpr;
    let best = -1;
    let bestD = (24 * this.dpr) ** 2;
    for (let i = 0; i < this.entities; i++) {
      const dx = this.sx(this.poses[i * this.stride]) - x;
      const dy = this.sy(this.poses[i * this.stride + 1]) - y;
      const dd = dx * dx + dy * dy;
      if (dd < bestD) {
        bestD = dd;
        best = i;
      }
    }
    if (best >= 0) this.onFocus(best);
  }

  /**
   * screenOf returns where entity e of row r is drawn, in CSS pixels (for tests).
   * @param {number} r
   * @param {number} e
   */
  screenOf(r, e) {
    const o = (r * this.entities + e) * this.stride;
    return { x: this.sx(this.poses[o]) / this.dpr, y: this.sy(this.poses[o + 1]) / this.dpr };
  }
}

/**
 * niceStep returns 1, 2 or 5 × 10^k, the smallest at least min.
 * @param {number} min
 */
function niceStep(min) {
  const k = Math.pow(10, Math.floor(Math.log10(min)));
  for (const m of [1, 2, 5, 10]) {
    if (m * k >= min) return m * k;
  }
  return 10 * k;
}
