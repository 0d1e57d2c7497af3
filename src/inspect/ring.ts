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

/** What the inspector's listener reads: the rows held, their bound, and each row as it comes. */
export interface RowSource {
  readonly capacity: number;
  rows(): InspectRow[];
  /** The rows held as JSON (an array), when the source keeps them so: what `JSON.stringify(rows())` would give. */
  rowsJson?(): Buffer;
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

  /** Calls `listener` with each row pushed from now on; returns the function that stops it. */
  subscribe(listener: (row: InspectRow) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
