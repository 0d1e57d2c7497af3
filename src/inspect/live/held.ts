/**
 * @module held: the messages a live feed keeps while no page follows, for the page that opens later. Each message's
 * bytes are copied into shared buffers of `BLOCK_BYTES` and its fields into typed arrays: the thousands kept are no
 * objects for the garbage collector to promote out of the young generation and mark again at each full collection
 * (kept as objects, they left a busy proxy's heap larger after each one: docs/performance.md#the-live-feed). A page reads them back as
 * captures, in order. No host type.
 */
import type { Refusal } from "../../core/admission.js";
import type { GateAdmitted, OwnAnswer } from "../../log/gate-log.js";

/** One message as it passed. */
export interface Capture {
  /** The HTTP exchange (proxy) or the line (stdio) it belongs to, from 1. */
  entry: number;
  /** `request`, `response`, `event N` (proxy); undefined on stdio, where each line is its own entry. */
  part?: string;
  from: "client" | "server";
  /**
   * The message's text, when the face has it as text (stdio's lines, an event stream's events); undefined when it comes
   * as `bytes`, or when neither does: the message was over the size limit (not kept). Read it with `textOf`.
   */
  text: string | undefined;
  /**
   * The message's bytes as the face read them (the proxy's request bodies and JSON answers): decoded only when a page
   * or `--record` reads the text, judged as they are when they are UTF-8, and copied as they are while no page follows.
   */
  bytes?: Uint8Array | undefined;
  /** The HTTP request's headers, names lower-cased (proxy); none on stdio. */
  headers?: Record<string, string>;
  /** The `Mcp-Session-Id` the server's answer assigned (its answer to `initialize`). */
  session?: string;
  /** When it passed (milliseconds since the epoch). */
  time: number;
  /**
   * The gate's admission of these very bytes (a client's request the proxy admitted): judged from it, not again. Not
   * kept while no page follows: the message is judged from its bytes when a page opens.
   */
  admitted?: GateAdmitted | undefined;
  /** A request the face refused before reading its body (its Host, its media type, its declared size): the refusal. */
  refused?: CapturedRefusal;
  /** The face's own answer (a refusal, or its word for an upstream that failed), not the server's. */
  own?: OwnAnswer;
}

/** What a capture keeps of a refusal: what the gate answered, and why. */
export type CapturedRefusal = Pick<Refusal, "status" | "reason" | "response">;

/** A capture's text: its own, or its bytes decoded (what is not UTF-8 becomes U+FFFD); undefined when over the size limit. */
export function textOf(capture: Capture): string | undefined {
  const { text, bytes } = capture;
  if (text !== undefined || bytes === undefined) return text;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
}

/** The text's length in UTF-16 units as the bounds count it; for bytes not decoded yet, their length (never less). */
export function unitsOf(capture: Capture): number {
  return capture.text?.length ?? capture.bytes?.byteLength ?? 0;
}

/** The buffers messages are copied into, one after another; a larger message gets a buffer of its own. */
export const BLOCK_BYTES = 64 * 1024;
/** Buffers let go by the oldest messages kept for the next ones: no allocation and release of one as the ring turns. */
const SPARE_BLOCKS = 2;

/** A capture's fields as one string (`metaString`), and the buffer and offset it was last written at (block -1: none yet). */
interface Meta {
  headers: unknown;
  session: string | undefined;
  meta: string;
  size: number;
  block: number;
  at: number;
}

const FROM_SERVER = 1;
const HAS_TEXT = 2;
const HAS_PART = 4;
const HAS_SESSION = 8;
const HAS_HEADERS = 16;
/** The slots the arrays start with; they double as messages come, up to twice the feed's capacity. */
const FIRST_SLOTS = 256;

/** Whether UTF-8 carries the string as it is: a lone surrogate does not (such a message is kept as it came). */
function wellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export class HeldCaptures {
  /** Held: slots `[first, end)` of the arrays, oldest first; slot `i` is message number `base + i`. */
  private first = 0;
  private end = 0;
  private base = 0;
  private entry: Float64Array;
  private time: Float64Array;
  /**
   * The text's length in UTF-16 units (what the feed's bound counts), its bytes, and its fields' bytes: where they lie
   * in its own buffer (written after its text, or by an earlier message of the same fields in that buffer).
   */
  private units: Float64Array;
  private block: Float64Array;
  private offset: Float64Array;
  private textBytes: Float64Array;
  private metaAt: Float64Array;
  private metaBytes: Float64Array;
  private flags: Uint8Array;
  /** The buffers still holding a message; `blocks[0]` is block number `firstBlock`. */
  private blocks: Buffer[] = [];
  private firstBlock = 0;
  private used = 0;
  /** Buffers no message lies in any more, for the next ones (never those `take` handed views of). */
  private readonly spare: Buffer[] = [];
  /** Messages the compact form cannot carry (see `wellFormed`; a refusal, wymcp's own answer), kept as they came, by number. */
  private readonly odd = new Map<number, Capture>();
  /** The held messages' text, UTF-16 units. */
  textUnits = 0;
  /** The last fields made per part: of which headers object and session, their UTF-8 length, where they were written last. */
  private readonly metas = new Map<string | undefined, Meta>();

  constructor(readonly capacity: number) {
    const slots = Math.min(FIRST_SLOTS, 2 * (capacity + 1));
    this.entry = new Float64Array(slots);
    this.time = new Float64Array(slots);
    this.units = new Float64Array(slots);
    this.block = new Float64Array(slots);
    this.offset = new Float64Array(slots);
    this.textBytes = new Float64Array(slots);
    this.metaAt = new Float64Array(slots);
    this.metaBytes = new Float64Array(slots);
    this.flags = new Uint8Array(slots);
  }

  get size(): number {
    return this.end - this.first;
  }

  /** The bytes of the buffers holding messages. */
  get blockBytes(): number {
    let total = 0;
    for (const block of this.blocks) total += block.length;
    return total;
  }

  add(capture: Capture): void {
    const i = this.slot();
    const { text, bytes } = capture;
    this.entry[i] = capture.entry;
    this.time[i] = capture.time;
    const units = unitsOf(capture);
    this.units[i] = units;
    this.textUnits += units;
    // A refusal and wymcp's own answer are rare: kept as they came, with their marks.
    const meta = capture.refused === undefined && capture.own === undefined ? this.metaOf(capture) : undefined;
    if (meta === undefined || (text !== undefined && bytes === undefined && !wellFormed(text))) {
      // Without the gate's admission: held messages are judged from their bytes.
      const { admitted: _admitted, ...kept } = capture;
      this.odd.set(this.base + i, { ...kept, text: textOf(capture), bytes: undefined });
      this.flags[i] = 0;
      this.textBytes[i] = this.metaBytes[i] = 0;
      this.block[i] = this.firstBlock + this.blocks.length - 1;
      return;
    }
    // The bytes as the face read them, copied as they are; a text, as UTF-8.
    const size = bytes !== undefined ? bytes.byteLength : text === undefined ? 0 : Buffer.byteLength(text, "utf8");
    const metaSize = meta.size;
    const current = this.firstBlock + this.blocks.length - 1;
    // Fields already written in the buffer this message goes into are not written again: a buffer lives as long as any
    // message in it, so the message reads them there.
    const shared =
      metaSize > 0 && this.blocks.length > 0 && meta.block === current && this.blocks[this.blocks.length - 1]!.length - this.used >= size;
    const into = this.room(shared ? size : size + metaSize);
    const at = this.used;
    if (size > 0) {
      if (bytes !== undefined) into.set(bytes, at);
      else into.write(text!, at, size, "utf8");
    }
    this.used += size;
    if (metaSize > 0 && !shared) {
      into.write(meta.meta, this.used, metaSize, "utf8");
      meta.block = this.firstBlock + this.blocks.length - 1;
      meta.at = this.used;
      this.used += metaSize;
    }
    this.block[i] = this.firstBlock + this.blocks.length - 1;
    this.offset[i] = at;
    this.textBytes[i] = size;
    this.metaAt[i] = meta.at;
    this.metaBytes[i] = metaSize;
    this.flags[i] =
      (capture.from === "server" ? FROM_SERVER : 0) |
      (text !== undefined || bytes !== undefined ? HAS_TEXT : 0) |
      (capture.part !== undefined ? HAS_PART : 0) |
      (capture.session !== undefined ? HAS_SESSION : 0) |
      (capture.headers !== undefined ? HAS_HEADERS : 0);
  }

  /** Lets the oldest message go, and the buffers no message held lies in any more. */
  dropOldest(): void {
    if (this.first === this.end) return;
    this.textUnits -= this.units[this.first]!;
    if (this.odd.size > 0) this.odd.delete(this.base + this.first);
    this.first++;
    if (this.first === this.end) return this.clear();
    let drop = 0;
    while (drop < this.blocks.length - 1 && this.firstBlock + drop < this.block[this.first]!) drop++;
    if (drop > 0) {
      for (const gone of this.blocks.splice(0, drop))
        if (gone.length === BLOCK_BYTES && this.spare.length < SPARE_BLOCKS) this.spare.push(gone);
      this.firstBlock += drop;
    }
  }

  /** Every message held, oldest first, as it was captured; none is held after. */
  take(): Capture[] {
    return this.takeOldest(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  /**
   * The oldest messages held, oldest first, as they were captured: `count` at most, and no more once their text
   * reaches `units` (one at least). They are held no more.
   */
  takeOldest(count: number, units: number): Capture[] {
    const out: Capture[] = [];
    let taken = 0;
    while (this.first < this.end && out.length < count && (out.length === 0 || taken < units)) {
      out.push(this.read(this.first));
      taken += this.units[this.first]!;
      this.textUnits -= this.units[this.first]!;
      if (this.odd.size > 0) this.odd.delete(this.base + this.first);
      this.first++;
    }
    if (this.first === this.end) {
      this.clear();
      return out;
    }
    // The buffers no message held lies in go, and are not kept for the next ones: the captures taken are views of them.
    let drop = 0;
    while (drop < this.blocks.length - 1 && this.firstBlock + drop < this.block[this.first]!) drop++;
    if (drop > 0) {
      this.blocks.splice(0, drop);
      this.firstBlock += drop;
    }
    return out;
  }

  private read(i: number): Capture {
    const odd = this.odd.size > 0 ? this.odd.get(this.base + i) : undefined;
    if (odd) return odd;
    const flags = this.flags[i]!;
    const capture: Capture = {
      entry: this.entry[i]!,
      from: flags & FROM_SERVER ? "server" : "client",
      text: undefined,
      time: this.time[i]!,
    };
    const size = this.textBytes[i]!;
    const metaSize = this.metaBytes[i]!;
    const block = size + metaSize > 0 ? this.blocks[this.block[i]! - this.firstBlock]! : undefined;
    const at = this.offset[i]!;
    if (flags & HAS_TEXT) {
      // A view, judged before the buffer can go. Bytes that are not UTF-8 are judged from their text, encoded again.
      const bytes = block === undefined ? Buffer.alloc(0) : block.subarray(at, at + size);
      capture.text = bytes.toString("utf8");
      if (!capture.text.includes("\uFFFD")) capture.bytes = bytes;
    }
    if (metaSize > 0) {
      const metaAt = this.metaAt[i]!;
      const fields = block!.toString("utf8", metaAt, metaAt + metaSize).split("\0");
      if (flags & HAS_PART) capture.part = fields[0];
      if (flags & HAS_SESSION) capture.session = fields[1];
      if (flags & HAS_HEADERS) {
        const headers: Record<string, string> = {};
        for (let f = 2; f + 1 < fields.length; f += 2) headers[fields[f]!] = fields[f + 1]!;
        capture.headers = headers;
      }
    }
    return capture;
  }

  private clear(): void {
    this.base += this.end;
    this.first = this.end = 0;
    this.textUnits = 0;
    this.odd.clear();
    this.firstBlock += this.blocks.length;
    this.blocks = [];
    this.used = 0;
  }

  /**
   * The capture's fields as `metaString` writes them (undefined: the capture is kept as it came). The last one per part
   * is kept with the headers object and session it was made of: an exchange's request and answer share their headers
   * object, and the proxy's tap hands on one object for as long as the requests' headers stay the same.
   */
  private metaOf(capture: Capture): Meta | undefined {
    const { part, session, headers } = capture;
    const known = this.metas.get(part);
    if (known !== undefined && known.headers === headers && known.session === session) return known;
    const meta = metaString(capture);
    if (meta === undefined) return undefined;
    const made: Meta = { headers, session, meta, size: meta === "" ? 0 : Buffer.byteLength(meta, "utf8"), block: -1, at: 0 };
    // A few parts only (`request`, `response`, the first events): a stream's later events are not remembered.
    if (known !== undefined || this.metas.size < 8) this.metas.set(part, made);
    return made;
  }

  /** The buffer a message of `size` bytes goes into, at `used`. */
  private room(size: number): Buffer {
    const last = this.blocks.at(-1);
    if (last !== undefined && last.length - this.used >= size) return last;
    if (size === 0 && last === undefined) return Buffer.alloc(0);
    const block = size <= BLOCK_BYTES && this.spare.length > 0 ? this.spare.pop()! : Buffer.allocUnsafeSlow(Math.max(size, BLOCK_BYTES));
    this.blocks.push(block);
    this.used = 0;
    return block;
  }

  /**
   * The slot for the next message: the arrays' free end. Full, they double (up to twice what the feed holds) or, once
   * the held messages fill no more than half of them, the held move to the front: a move now and then, never one a message.
   */
  private slot(): number {
    const length = this.entry.length;
    if (this.end === length) {
      if (this.end - this.first <= length / 2) {
        const arrays = [
          this.entry,
          this.time,
          this.units,
          this.block,
          this.offset,
          this.textBytes,
          this.metaAt,
          this.metaBytes,
          this.flags,
        ];
        for (const array of arrays) array.copyWithin(0, this.first, this.end);
        // Message numbers stay: the odd ones' keys hold.
        this.base += this.first;
        this.end -= this.first;
        this.first = 0;
      } else this.grow(Math.max(length + 1, Math.min(length * 2, 2 * (this.capacity + 1))));
    }
    return this.end++;
  }

  private grow(slots: number): void {
    this.entry = wider(this.entry, slots);
    this.time = wider(this.time, slots);
    this.units = wider(this.units, slots);
    this.block = wider(this.block, slots);
    this.offset = wider(this.offset, slots);
    this.textBytes = wider(this.textBytes, slots);
    this.metaAt = wider(this.metaAt, slots);
    this.metaBytes = wider(this.metaBytes, slots);
    const flags = new Uint8Array(slots);
    flags.set(this.flags);
    this.flags = flags;
  }
}

function wider(array: Float64Array, slots: number): Float64Array {
  const next = new Float64Array(slots);
  next.set(array);
  return next;
}

/**
 * A capture's part, session and headers as one string, NUL between fields (none: ""); undefined when a field holds NUL
 * itself or is not well-formed, so that the capture is kept as it came.
 */
function metaString(capture: Capture): string | undefined {
  const { part, session, headers } = capture;
  if (part === undefined && session === undefined && headers === undefined) return "";
  let meta = part ?? "";
  if (meta.includes("\0")) return undefined;
  const s = session ?? "";
  if (s.includes("\0")) return undefined;
  meta += `\0${s}`;
  if (headers)
    for (const name in headers) {
      const value = headers[name]!;
      if (name.includes("\0") || value.includes("\0")) return undefined;
      meta += `\0${name}\0${value}`;
    }
  return wellFormed(meta) ? meta : undefined;
}
