/**
 * @module ring: the rows the inspector's page shows, held in a bounded ring: the oldest row goes when a new one comes
 * past the capacity. Whoever judges messages pushes (`wymcp inspect` from files, the live feed of `wymcp proxy --ui` as
 * a page follows); listeners (the page's event stream) are told of each row as it is pushed. No host type.
 */
import type { InspectRow, RowInput } from "./row.js";

/** The rows kept by default, and the most the page holds. */
export const DEFAULT_MAX_ROWS = 10_000;
/**
 * The most message text kept, in UTF-16 code units, whatever the row count: ten thousand rows of messages at the size
 * limit would otherwise be gigabytes held, and as much in one answer of `/rows`.
 */
export const DEFAULT_MAX_TEXT = 32 * 1024 * 1024;

/** One answer of `/rows`: the rows after a cursor, bounded in number and in bytes. */
export interface RowsPage {
  /** The rows as one JSON array's UTF-8 bytes, oldest first. */
  json: Uint8Array;
  count: number;
  /** The number of the oldest row held (the next row's when none is). */
  first: number;
  /** Where the next read goes on from: the last row's number in this page, else the cursor read from (at most the newest row's). */
  next: number;
  /** Whether rows after `next` are held, or wait to be judged. */
  more: boolean;
}

/** What the inspector's listener reads: the rows held, their bound, and each row as it comes. */
export interface RowSource {
  readonly capacity: number;
  /** Every row held, oldest first (a source that judges when read judges all it holds first). */
  rows(): InspectRow[];
  /**
   * At most `limit` rows numbered after `after`, oldest first, in at most `maxBytes` of JSON (one row at least, whatever
   * its size). A source that judges when read judges only what the page needs, in slices a turn of the event loop
   * apart, and stops once `gone()` says the reader left.
   */
  page(after: number, limit: number, maxBytes: number, gone?: () => boolean): Promise<RowsPage>;
  /**
   * Each row from now on; a source that makes its event hands that too (the event stream sends it as it is), else the
   * event is the row's JSON on one `data:` line.
   */
  subscribe(listener: (row: InspectRow, event?: string) => void): () => void;
}

export class RowRing implements RowSource {
  /** Oldest first, from `start`; entries before it are dropped rows, compacted away now and then. */
  private slots: InspectRow[] = [];
  private start = 0;
  private next = 1;
  private text = 0;
  private readonly listeners = new Set<(row: InspectRow) => void>();

  constructor(
    readonly capacity = DEFAULT_MAX_ROWS,
    readonly maxText = DEFAULT_MAX_TEXT,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`a ring holds at least one row, not ${capacity}`);
    if (!Number.isSafeInteger(maxText) || maxText < 1) throw new RangeError(`a ring holds at least one character, not ${maxText}`);
  }

  /** Adds a row (numbered from 1 in the order pushed), drops the oldest past either bound, and tells every listener. */
  push(input: RowInput, time = Date.now()): InspectRow {
    const row: InspectRow = { seq: this.next++, time, verdict: input.verdict, body: input.body, text: input.text };
    this.slots.push(row);
    this.text += row.text?.length ?? 0;
    // The newest row stays even alone over the text bound: it is no larger than the size limit let through.
    while (this.slots.length - this.start > this.capacity || (this.text > this.maxText && this.slots.length - this.start > 1)) {
      this.text -= this.slots[this.start]!.text?.length ?? 0;
      this.start++;
    }
    if (this.start >= this.capacity) {
      this.slots = this.slots.slice(this.start);
      this.start = 0;
    }
    for (const listener of this.listeners) listener(row);
    return row;
  }

  /** How many rows are held, and their text's length (UTF-16 units). */
  get size(): number {
    return this.slots.length - this.start;
  }

  get textUnits(): number {
    return this.text;
  }

  /** Drops the oldest row held (as the live feed's JSON rows do: the tests hold the two to the same answers). */
  dropOldest(): void {
    if (this.start >= this.slots.length) return;
    this.text -= this.slots[this.start]!.text?.length ?? 0;
    this.start++;
    if (this.start >= this.capacity) {
      this.slots = this.slots.slice(this.start);
      this.start = 0;
    }
  }

  /** The rows held, oldest first. */
  rows(): InspectRow[] {
    return this.slots.slice(this.start);
  }

  /** The rows after `after`, bounded (`RowSource.page`); the rows are judged already, so it resolves at once. */
  page(after: number, limit: number, maxBytes: number): Promise<RowsPage> {
    const held = this.slots.length - this.start;
    const first = held === 0 ? this.next : this.slots[this.start]!.seq;
    const parts: Uint8Array[] = [];
    let bytes = 2;
    let i = this.start + Math.max(0, after + 1 - first);
    for (; i < this.slots.length && parts.length < limit; i++) {
      const json = utf8.encode(JSON.stringify(this.slots[i]));
      if (parts.length > 0 && bytes + 1 + json.length > maxBytes) break;
      bytes += json.length + (parts.length > 0 ? 1 : 0);
      parts.push(json);
    }
    const last = this.next - 1;
    const next = parts.length > 0 ? this.slots[i - 1]!.seq : Math.min(Math.max(after, first - 1), last);
    return Promise.resolve({ json: joinArray(parts), count: parts.length, first, next, more: next < last });
  }

  /** Calls `listener` with each row pushed from now on; returns the function that stops it. */
  subscribe(listener: (row: InspectRow) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const utf8 = new TextEncoder();

/** JSON texts' UTF-8 bytes as one JSON array's. */
export function joinArray(parts: readonly Uint8Array[]): Uint8Array {
  let size = 1 + parts.length;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(Math.max(size, 2));
  out[0] = 0x5b;
  let at = 1;
  parts.forEach((part, i) => {
    if (i > 0) out[at++] = 0x2c;
    out.set(part, at);
    at += part.length;
  });
  out[at] = 0x5d;
  return out;
}
