// @ts-check
// webm.js records a canvas as WebM where the browser's MediaRecorder
// records none (WebKit, Safari's engine) but its WebCodecs encode VP9 or
// VP8: WebMRecorder encodes the canvas's frames with a VideoEncoder, and
// webm() writes them into a WebM file, a Matroska file of DocType "webm",
// written from the Matroska specification (RFC 9559) and WebM's
// restrictions of it. The file is written once, when the recording stops,
// so every element's size is known: no element of unknown size.

/**
 * @typedef {{data: Uint8Array, timestamp: number, key: boolean}} WebMFrame
 *   one encoded frame: its bytes, its time from the start in µs, and
 *   whether it is a keyframe
 * @typedef {{codec: string, id: 'V_VP9' | 'V_VP8'}} WebMCodec
 *   a WebCodecs codec string and the Matroska CodecID of the same codec
 */

/** CODECS are the codecs WebMRecorder asks the VideoEncoder for, best first. */
const CODECS = /** @type {WebMCodec[]} */ ([
  { codec: 'vp09.00.10.08', id: 'V_VP9' },
  { codec: 'vp8', id: 'V_VP8' },
]);

/**
 * Time between keyframes, µs: a player seeks to a keyframe, and each
 * starts a Cluster.
 */
const KEY_EVERY = 1_000_000;

/** Bits per second a WebMRecorder asks its encoder for. */
const BITRATE = 2_500_000;

/**
 * Frames waiting in the encoder beyond which a WebMRecorder drops the
 * canvas's frame instead of queueing it: a slow encoder makes a recording
 * of fewer frames, not a page that holds seconds of frames in memory.
 */
const MAX_QUEUE = 4;

/** The Matroska element IDs webm() writes, with their marker bits. */
const ID = {
  EBML: 0x1a45dfa3,
  EBMLVersion: 0x4286,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeVersion: 0x4287,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  SeekHead: 0x114d9b74,
  Seek: 0x4dbb,
  SeekID: 0x53ab,
  SeekPosition: 0x53ac,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  Duration: 0x4489,
  MuxingApp: 0x4d80,
  WritingApp: 0x5741,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackUID: 0x73c5,
  TrackType: 0x83,
  FlagLacing: 0x9c,
  CodecID: 0x86,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3,
  Cues: 0x1c53bb6b,
  CuePoint: 0xbb,
  CueTime: 0xb3,
  CueTrackPositions: 0xb7,
  CueTrack: 0xf7,
  CueClusterPosition: 0xf1,
};

/**
 * webm writes frames, in decoding order, the first a keyframe, as a WebM
 * file of one video track of codec id and width×height pixels. Its clock
 * counts milliseconds (TimestampScale 1 ms); a frame's time is rounded to
 * it. A Cluster starts at each keyframe, and wherever a frame's time from
 * its Cluster's would not fit a SimpleBlock's 16 bits; Cues point at the
 * Clusters that start with a keyframe, and a SeekHead at Info, Tracks and
 * Cues. duration is the recording's length in ms: the last frame's time
 * plus its display time.
 * @param {{id: string, width: number, height: number, frames: WebMFrame[], duration: number}} o
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function webm({ id, width, height, frames, duration }) {
  if (frames.length === 0) throw new Error('webm: no frames');
  if (!frames[0].key) throw new Error('webm: the first frame is not a keyframe');
  const header = element(ID.EBML, [
    uint(ID.EBMLVersion, 1),
    uint(ID.EBMLReadVersion, 1),
    uint(ID.EBMLMaxIDLength, 4),
    uint(ID.EBMLMaxSizeLength, 8),
    string(ID.DocType, 'webm'),
    uint(ID.DocTypeVersion, 4),
    uint(ID.DocTypeReadVersion, 2),
  ]);
  const info = element(ID.Info, [
    uint(ID.TimestampScale, 1_000_000),
    float(ID.Duration, duration),
    string(ID.MuxingApp, 'Interp Lab'),
    string(ID.WritingApp, 'Interp Lab'),
  ]);
  const tracks = element(ID.Tracks, [
    element(ID.TrackEntry, [
      uint(ID.TrackNumber, 1),
      uint(ID.TrackUID, 1 + Math.floor(Math.random() * 0xffffffff)),
      uint(ID.TrackType, 1), // video
      uint(ID.FlagLacing, 0),
      string(ID.CodecID, id),
      element(ID.Video, [uint(ID.PixelWidth, width), uint(ID.PixelHeight, height)]),
    ]),
  ]);

  // The SeekHead's positions are written 8 bytes wide, so its size is
  // known before the positions are.
  const seekSize = seekHead([0, 0, 0]).length;
  let at = seekSize + info.length + tracks.length; // from the start of the Segment's data
  const tracksAt = seekSize + info.length;
  /** @type {Uint8Array[]} */
  const clusters = [];
  /** @type {Uint8Array[]} */
  const cues = [];
  /** @type {Uint8Array[]} */
  let blocks = [];
  let clusterTime = 0;
  let clusterKey = false;
  const flush = () => {
    if (blocks.length === 0) return;
    const c = element(ID.Cluster, [uint(ID.Timestamp, clusterTime), ...blocks]);
    if (clusterKey) {
      cues.push(element(ID.CuePoint, [
        uint(ID.CueTime, clusterTime),
        element(ID.CueTrackPositions, [uint(ID.CueTrack, 1), uint(ID.CueClusterPosition, at)]),
      ]));
    }
    clusters.push(c);
    at += c.length;
    blocks = [];
  };
  for (const f of frames) {
    const t = Math.max(0, Math.round(f.timestamp / 1000));
    if (f.key || t - clusterTime > 0x7fff || blocks.length === 0) {
      flush();
      clusterTime = t;
      clusterKey = f.key;
    }
    blocks.push(simpleBlock(t - clusterTime, f.key, f.data));
  }
  flush();
  const cuesEl = element(ID.Cues, cues);
  const segment = element(ID.Segment, [seekHead([seekSize, tracksAt, at]), info, tracks, ...clusters, cuesEl]);
  return concat([header, segment]);
}

/**
 * seekHead writes the SeekHead pointing at Info, Tracks and Cues, at
 * positions from the start of the Segment's data.
 * @param {number[]} at
 */
function seekHead(at) {
  return element(ID.SeekHead, [ID.Info, ID.Tracks, ID.Cues].map((id, i) =>
    element(ID.Seek, [element(ID.SeekID, [idBytes(id)]), element(ID.SeekPosition, [uintBytes(at[i], 8)])])));
}

/**
 * simpleBlock writes a SimpleBlock of track 1: rel is its time from its
 * Cluster's, in ms, in [-32768, 32767].
 * @param {number} rel
 * @param {boolean} key
 * @param {Uint8Array} data
 */
function simpleBlock(rel, key, data) {
  const head = new Uint8Array(4);
  head[0] = 0x81; // track number 1, as a one-byte vint
  new DataView(head.buffer).setInt16(1, rel);
  head[3] = key ? 0x80 : 0;
  return element(ID.SimpleBlock, [head, data]);
}

/**
 * element writes an element: its ID, the size of its data as a vint of the
 * fewest bytes, then the data, children one after another.
 * @param {number} id
 * @param {Uint8Array[]} children
 */
function element(id, children) {
  const size = children.reduce((n, c) => n + c.length, 0);
  return concat([idBytes(id), vint(size), ...children]);
}

/**
 * uint writes an unsigned integer element, in the fewest bytes.
 * @param {number} id
 * @param {number} v
 */
function uint(id, v) {
  let n = 1;
  while (n < 8 && v >= 2 ** (8 * n)) n++;
  return element(id, [uintBytes(v, n)]);
}

/**
 * float writes a float element as 8 bytes (IEEE 754 double).
 * @param {number} id
 * @param {number} v
 */
function float(id, v) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, v);
  return element(id, [b]);
}

/**
 * string writes an ASCII string element.
 * @param {number} id
 * @param {string} s
 */
function string(id, s) {
  return element(id, [new TextEncoder().encode(s)]);
}

/**
 * idBytes writes an element ID: its bytes as they are, marker bits
 * included (1 to 4 bytes).
 * @param {number} id
 */
function idBytes(id) {
  const n = id >= 0x1000000 ? 4 : id >= 0x10000 ? 3 : id >= 0x100 ? 2 : 1;
  return uintBytes(id, n);
}

/**
 * vint writes v as an EBML variable-size integer of the fewest bytes. A
 * vint of n bytes holds 7n bits; all of them ones means "unknown size",
 * so v must stay below that.
 * @param {number} v
 */
function vint(v) {
  let n = 1;
  while (n < 8 && v >= 2 ** (7 * n) - 1) n++;
  const b = uintBytes(v, n);
  b[0] |= 0x80 >> (n - 1);
  return b;
}

/**
 * uintBytes writes v, a non-negative integer below 2^53, big-endian in n
 * bytes.
 * @param {number} v
 * @param {number} n
 */
function uintBytes(v, n) {
  const b = new Uint8Array(n);
  for (let i = n - 1; i >= 0; i--) {
    b[i] = v % 256;
    v = Math.floor(v / 256);
  }
  return b;
}

/**
 * @param {Uint8Array[]} parts
 * @returns {Uint8Array<ArrayBuffer>}
 */
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * WebMRecorder encodes a canvas's frames (VP9, or VP8) with WebCodecs and,
 * at finish(), writes them into a WebM Blob. Its owner calls add() each
 * time it has drawn a frame worth keeping.
 */
export class WebMRecorder {
  /**
   * choose returns the first of CODECS the browser's VideoEncoder encodes
   * at width×height, or null when it has no VideoEncoder or encodes none.
   * @param {number} width
   * @param {number} height
   * @param {number} fps
   * @returns {Promise<WebMCodec | null>}
   */
  static async choose(width, height, fps) {
    if (typeof VideoEncoder === 'undefined' || typeof VideoFrame === 'undefined') return null;
    for (const c of CODECS) {
      try {
        const r = await VideoEncoder.isConfigSupported(config(c.codec, width, height, fps));
        if (r.supported) return c;
      } catch {
        // A codec string the browser cannot parse: the next one.
      }
    }
    return null;
  }

  /**
   * @param {HTMLCanvasElement} canvas what add() encodes
   * @param {WebMCodec} codec from choose, at the canvas's size
   * @param {number} fps the rate add() is called at at most, s⁻¹
   * @param {{bytes: (n: number) => void, error: (message: string) => void}} on
   *   told of each encoded frame's size, and of an encoder error (after
   *   which the recorder encodes nothing more)
   */
  constructor(canvas, codec, fps, on) {
    this.canvas = canvas;
    this.codec = codec;
    this.fps = fps;
    /** @type {WebMFrame[]} */
    this.frames = [];
    this.added = 0; // frames handed to the encoder
    this.dropped = 0; // frames not encoded because the encoder was behind
    this.lastTime = 0; // µs, of the last frame handed to the encoder
    this.lastKey = 0; // µs, of the last keyframe asked for
    this.failed = false;
    this.done = false;
    this.encoder = new VideoEncoder({
      output: (chunk) => {
        const data = new Uint8Array(chunk.byteLength);
        chunk.copyTo(data);
        this.frames.push({ data, timestamp: chunk.timestamp, key: chunk.type === 'key' });
        on.bytes(chunk.byteLength);
      },
      error: (e) => {
        if (this.failed) return;
        this.failed = true;
        on.error(`the video encoder (${codec.codec}) failed: ${e.message}`);
      },
    });
    this.encoder.configure(config(codec.codec, canvas.width, canvas.height, fps));
  }

  /**
   * add encodes the canvas as it is now, at time t from the start of the
   * recording, in µs (after the last frame's).
   * @param {number} t
   */
  add(t) {
    if (this.done || this.failed || this.encoder.state !== 'configured') return;
    if (this.added > 0 && this.encoder.encodeQueueSize > MAX_QUEUE) {
      this.dropped++;
      return;
    }
    // A keyframe a second of the recording's time, not every so many
    // frames: the page composes fewer frames where it draws fewer.
    const key = this.added === 0 || t - this.lastKey >= KEY_EVERY;
    const frame = new VideoFrame(this.canvas, { timestamp: Math.round(t) });
    try {
      this.encoder.encode(frame, { keyFrame: key });
    } finally {
      frame.close();
    }
    if (key) this.lastKey = t;
    this.added++;
    this.lastTime = t;
  }

  /**
   * finish encodes what is queued and returns the recording as a WebM
   * Blob; it rejects when the encoder failed or encoded nothing.
   * @returns {Promise<Blob>}
   */
  async finish() {
    this.done = true;
    if (this.failed) throw new Error('the video encoder failed');
    await this.encoder.flush();
    this.encoder.close();
    if (this.frames.length === 0) throw new Error(`the video encoder (${this.codec.codec}) gave no frames`);
    const bytes = webm({
      id: this.codec.id,
      width: this.canvas.width,
      height: this.canvas.height,
      frames: this.frames,
      duration: this.lastTime / 1000 + 1000 / this.fps,
    });
    return new Blob([bytes], { type: 'video/webm' });
  }

  /** close drops the encoder and what it encoded, after an error. */
  close() {
    this.done = true;
    if (this.encoder.state !== 'closed') this.encoder.close();
    this.frames = [];
  }
}

/**
 * config is the VideoEncoder configuration WebMRecorder asks for: realtime,
 * so that a software encoder keeps up with the page.
 * @param {string} codec
 * @param {number} width
 * @param {number} height
 * @param {number} fps
 * @returns {VideoEncoderConfig}
 */
function config(codec, width, height, fps) {
  return { codec, width, height, bitrate: BITRATE, framerate: fps, latencyMode: 'realtime' };
}
