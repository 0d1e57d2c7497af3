/**
 * @module json-rows: the rows a live feed has judged while a page follows, each kept as its JSON (the text `/rows` and
 * the event stream send) in shared buffers, its place and length in typed arrays: the ten thousand rows held are no
 * objects for the garbage collector to promote and mark again, as a ring of row objects was (on a busy proxy, each row
 * outlived every scavenge of its life and died in the old generation). Each row is made into JSON once, for every page.
 * No host type.
 */
import { joinArray, type RowsPage } from "../ring.js";
import type { InspectRow, RowInput } from "../row.js";

/** The buffers rows are written into, one after another; a larger row gets a buffer of its own. */
export const ROW_BLOCK_BYTES = 64 * 1024;
/** Buffers let go by the oldest rows kept for the next ones. */
const SPARE_BLOCKS = 2;
/** The slots the arrays start with; they double as rows come, up to twice the capacity. */
const FIRST_SLOTS = 256;
/**
 * The JSON of the rows read lately whose text `/rows` escaped, kept up to this many bytes: many readers of the same
 * rows (the oldest, where a page starts) copy it instead of escaping each text again.
 */
export const READ_CACHE_BYTES = 1024 * 1024;

/** A row, and its event on the page's event stream (`eventOf`), as pushed. */
export type JsonRowListener = (row: InspectRow, event: string) => void;

/** Whether UTF-8 carries the string as it is: a lone surrogate does not. */
function wellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/**
 * A row's Server-Sent Event: the JSON of the row without its text on the first `data:` line, the text as it is on the
 * lines after (a line of its own for each of its lines: the page's EventSource joins them with LF again). A text
 * holding CR, which an event stream reads as a line end too, goes escaped in the row's JSON instead, as a row without
 * text does: the page reads a first line that is the whole event as the whole row.
 */
export function eventOf(head: string, text: string, row: InspectRow): string {
  if (text.includes("\r")) return `data: ${JSON.stringify(row)}\n\n`;
  return `data: ${head}\ndata: ${text.includes("\n") ? text.replaceAll("\n", "\ndata: ") : text}\n\n`;
}

export class JsonRows {
  /** Held: slots `[first, end)`, oldest first. */
  private first = 0;
  private end = 0;
  /** Per slot: the text's UTF-16 units (what the bound counts), its buffer's number, and where its JSON lies in it. */
  private units: Float64Array;
  private block: Float64Array;
  private offset: Float64Array;
  private bytes: Float64Array;
  /** The text's bytes, written after the JSON of the rest of the row; -1: the text is in the JSON (or there is none). */
  private textBytes: Float64Array;
  /** The buffers still holding a row; `blocks[0]` is buffer number `firstBlock`. */
  private blocks: Buffer[] = [];
  private firstBlock = 0;
  private used = 0;
  private readonly spare: Buffer[] = [];
  private next = 1;
  private text = 0;
  private readonly listeners = new Set<JsonRowListener>();
  /** By row number, oldest read first (`READ_CACHE_BYTES`). */
  private readonly escaped = new Map<number, Buffer>();
  private escapedBytes = 0;

  constructor(
    readonly capacity: number,
    readonly maxText: number,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`a ring holds at least one row, not ${capacity}`);
    if (!Number.isSafeInteger(maxText) || maxText < 1) throw new RangeError(`a ring holds at least one character, not ${maxText}`);
    const slots = Math.min(FIRST_SLOTS, 2 * (capacity + 1));
    this.units = new Float64Array(slots);
    this.block = new Float64Array(slots);
    this.offset = new Float64Array(slots);
    this.bytes = new Float64Array(slots);
    this.textBytes = new Float64Array(slots);
  }

  get size(): number {
    return this.end - this.first;
  }

  /** The held rows' text, UTF-16 units. */
  get textUnits(): number {
    return this.text;
  }

  /** The number of the newest row pushed (0: none yet); the oldest held is `last - size + 1`. */
  get last(): number {
    return this.next - 1;
  }

  /** The bytes of the buffers holding rows. */
  get blockBytes(): number {
    let total = 0;
    for (const block of this.blocks) total += block.length;
    return total;
  }

  /**
   * Adds a row (numbered from 1 in the order pushed), drops the oldest past either bound, and tells every listener the
   * row and its event (`eventOf`). A row's text that UTF-8 carries as it is (no lone surrogate) is kept as its bytes
   * beside the JSON of the rest, and escaped into JSON only when `/rows` reads it.
   */
  push(input: RowInput, time: number): void {
    const row: InspectRow = { seq: this.next++, time, verdict: input.verdict, body: input.body, text: input.text };
    const { text } = input;
    const raw = text !== undefined && wellFormed(text);
    // JSON.stringify escapes a lone surrogate: the JSON is well-formed, and UTF-8 carries it as it is.
    const head = raw ? JSON.stringify({ seq: row.seq, time, verdict: row.verdict, body: row.body }) : JSON.stringify(row);
    const units = text?.length ?? 0;
    // A UTF-16 unit takes 3 bytes at most: a row sure to fit where the buffer's room is is written without counting first.
    const last = this.blocks.at(-1);
    const most = (head.length + (raw ? units : 0)) * 3;
    const into =
      last !== undefined && last.length - this.used >= most
        ? last
        : this.room(Buffer.byteLength(head, "utf8") + (raw ? Buffer.byteLength(text, "utf8") : 0));
    const at = this.used;
    const headSize = into.write(head, at, "utf8");
    const textSize = raw ? into.write(text, at + headSize, "utf8") : -1;
    this.used += headSize + Math.max(textSize, 0);
    const i = this.slot();
    this.units[i] = units;
    this.block[i] = this.firstBlock + this.blocks.length - 1;
    this.offset[i] = at;
    this.bytes[i] = headSize;
    this.textBytes[i] = textSize;
    this.text += units;
    // The newest row stays even alone over the text bound: it is no larger than the size limit let through.
    while (this.size > this.capacity || (this.text > this.maxText && this.size > 1)) this.dropOldest();
    if (this.listeners.size === 0) return;
    const event = raw ? eventOf(head, text, row) : `data: ${head}\n\n`;
    for (const listener of this.listeners) listener(row, event);
  }

  /** Drops the oldest row held, and the buffers no row held lies in any more. */
  dropOldest(): void {
    if (this.first === this.end) return;
    if (this.escaped.size > 0) this.forget(this.next - this.size);
    this.text -= this.units[this.first]!;
    this.first++;
    if (this.first === this.end) {
      this.first = this.end = 0;
      this.text = 0;
      this.release(this.blocks.length - 1);
      return;
    }
    let drop = 0;
    while (drop < this.blocks.length - 1 && this.firstBlock + drop < this.block[this.first]!) drop++;
    this.release(drop);
  }

  /** The rows held, oldest first, read back from their JSON. */
  rows(): InspectRow[] {
    const out: InspectRow[] = [];
    for (let i = this.first; i < this.end; i++) out.push(JSON.parse(this.read(i).toString("utf8")) as InspectRow);
    return out;
  }

  /** The rows held as one JSON array's bytes, oldest first: what `JSON.stringify(rows())` gives. */
  json(): Buffer {
    const parts: Buffer[] = [Buffer.from("[")];
    const comma = Buffer.from(",");
    for (let i = this.first; i < this.end; i++) {
      if (i > this.first) parts.push(comma);
      parts.push(this.read(i));
    }
    parts.push(Buffer.from("]"));
    return Buffer.concat(parts);
  }

  /**
   * Whether a page of rows after `after` would hold fewer than `limit` rows and `maxBytes` (their JSON, before a text
   * kept as bytes is escaped): whether judging more would fill it more. Counts the rows after `after`, a page's at most.
   */
  short(after: number, limit: number, maxBytes: number): boolean {
    const from = this.first + Math.max(0, after + 1 - (this.next - this.size));
    if (this.end - from >= limit) return false;
    let bytes = 0;
    for (let i = from; i < this.end; i++) bytes += this.bytes[i]! + Math.max(this.textBytes[i]!, 0);
    return bytes < maxBytes;
  }

  /** At most `limit` rows after `after`, in at most `maxBytes` of JSON (one row at least): `RowSource.page`'s answer. */
  page(after: number, limit: number, maxBytes: number, more: boolean): RowsPage {
    const first = this.next - this.size;
    const parts: Buffer[] = [];
    let bytes = 2;
    let i = this.first + Math.max(0, after + 1 - first);
    for (; i < this.end && parts.length < limit; i++) {
      const json = this.read(i);
      if (parts.length > 0 && bytes + 1 + json.length > maxBytes) break;
      bytes += json.length + (parts.length > 0 ? 1 : 0);
      parts.push(json);
    }
    const last = this.next - 1;
    const next = parts.length > 0 ? first + (i - 1 - this.first) : Math.min(Math.max(after, first - 1), last);
    return { json: joinArray(parts), count: parts.length, first, next, more: more || next < last };
  }

  /** Calls `listener` with each row pushed from now on, and its event; returns the function that stops it. */
  subscribe(listener: JsonRowListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Row `i`'s JSON, as `JSON.stringify` gives it: a text kept as bytes is escaped into it now, as its last member. */
  private read(i: number): Buffer {
    const at = this.offset[i]!;
    const block = this.blocks[this.block[i]! - this.firstBlock]!;
    const head = block.subarray(at, at + this.bytes[i]!);
    const textSize = this.textBytes[i]!;
    if (textSize < 0) return head;
    const seq = this.next - this.size + (i - this.first);
    const known = this.escaped.get(seq);
    if (known !== undefined) return known;
    const text = block.toString("utf8", at + head.length, at + head.length + textSize);
    const json = Buffer.concat([head.subarray(0, head.length - 1), Buffer.from(`,"text":${JSON.stringify(text)}}`)]);
    if (json.length <= READ_CACHE_BYTES) {
      this.escaped.set(seq, json);
      this.escapedBytes += json.length;
      while (this.escapedBytes > READ_CACHE_BYTES) this.forget(this.escaped.keys().next().value!);
    }
    return json;
  }

  /** Lets row `seq`'s escaped JSON go, if kept. */
  private forget(seq: number): void {
    const json = this.escaped.get(seq);
    if (json === undefined) return;
    this.escaped.delete(seq);
    this.escapedBytes -= json.length;
  }

  /** Lets the oldest `count` buffers go, keeping a few for the rows to come. */
  private release(count: number): void {
    if (count <= 0) return;
    for (const gone of this.blocks.splice(0, count))
      if (gone.length === ROW_BLOCK_BYTES && this.spare.length < SPARE_BLOCKS) this.spare.push(gone);
    this.firstBlock += count;
  }

  /** The buffer a row of `size` bytes goes into, at `used`. */
  private room(size: number): Buffer {
    const last = this.blocks.at(-1);
    if (last !== undefined && last.length - this.used >= size) return last;
    const block =
      size <= ROW_BLOCK_BYTES && this.spare.length > 0 ? this.spare.pop()! : Buffer.allocUnsafeSlow(Math.max(size, ROW_BLOCK_BYTES));
    this.blocks.push(block);
    this.used = 0;
    return block;
  }

  /** The slot for the next row: the arrays' free end; full, the held move to the front, or the arrays double. */
  private slot(): number {
    const length = this.units.length;
    if (this.end === length) {
      if (this.end - this.first <= length / 2) {
        for (const array of [this.units, this.block, this.offset, this.bytes, this.textBytes]) array.copyWithin(0, this.first, this.end);
        this.end -= this.first;
        this.first = 0;
      } else {
        const slots = Math.max(length + 1, Math.min(length * 2, 2 * (this.capacity + 1)));
        this.units = wider(this.units, slots);
        this.block = wider(this.block, slots);
        this.offset = wider(this.offset, slots);
        this.bytes = wider(this.bytes, slots);
        this.textBytes = wider(this.textBytes, slots);
      }
    }
    return this.end++;
  }
}

function wider(array: Float64Array, slots: number): Float64Array {
  const next = new Float64Array(slots);
  next.set(array);
  return next;
}
