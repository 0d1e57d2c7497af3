/**
 * @module ring: the rows the inspector's page shows, held in a bounded ring: the oldest row goes when a new one comes
 * past the capacity. Whoever judges messages (`wymcp inspect` from files, a proxy later) pushes; listeners (the page's
 * event stream) are told of each row as it is pushed. No host type.
 */
import type { InspectRow, RowInput } from "./row.js";

/** The rows kept by default, and the most the page holds. */
export const DEFAULT_MAX_ROWS = 10_000;

export class RowRing {
  private readonly slots: InspectRow[] = [];
  private start = 0;
  private next = 1;
  private readonly listeners = new Set<(row: InspectRow) => void>();

  constructor(readonly capacity = DEFAULT_MAX_ROWS) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`a ring holds at least one row, not ${capacity}`);
  }

  /** Adds a row (numbered from 1 in the order pushed) and tells every listener. */
  push(input: RowInput, time = Date.now()): InspectRow {
    const row: InspectRow = { seq: this.next++, time, ...input };
    if (this.slots.length < this.capacity) this.slots.push(row);
    else {
      this.slots[this.start] = row;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const listener of this.listeners) listener(row);
    return row;
  }

  /** The rows held, oldest first. */
  rows(): InspectRow[] {
    return [...this.slots.slice(this.start), ...this.slots.slice(0, this.start)];
  }

  /** Calls `listener` with each row pushed from now on; returns the function that stops it. */
  subscribe(listener: (row: InspectRow) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
