/** @module dropped-lines: the log of the messages `wymcp stdio` drops unanswered, bounded as its answers are. */
import type { GateLog, VerdictEvent } from "../../log/gate-log.js";

/** Shortest time between two answers with `id: null` (lines not JSON, too long): junk must not be answered with a flood. */
export const NULL_ID_ANSWER_INTERVAL_MS = 1_000;

/**
 * The log of the messages wymcp drops without an answer (junk past the once-a-second answer, a refused notification or
 * response): no answer bounds them, so their log must not cost more than the answers do. The first of a burst is logged
 * in full, the others within `NULL_ID_ANSWER_INTERVAL_MS` of it counted and logged as one line (by reason) when the
 * interval ends, when the next burst starts, or when the gate closes.
 */
export class DroppedLines {
  private burstStart = Number.NEGATIVE_INFINITY;
  private count = 0;
  private readonly reasons = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: GateLog,
    private readonly clock: () => number,
  ) {}

  add(event: VerdictEvent): void {
    const now = this.clock();
    if (now - this.burstStart >= NULL_ID_ANSWER_INTERVAL_MS) {
      this.flush();
      this.burstStart = now;
      this.log.verdict(event);
      return;
    }
    this.count++;
    const reason = `${event.code ?? ""} ${event.reason ?? "invalid-message"}`.trim();
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    // The count is logged within the interval even when nothing follows the burst; the timer never holds the process.
    this.timer ??= setTimeout(() => this.flush(), NULL_ID_ANSWER_INTERVAL_MS).unref();
  }

  /** Logs the count of the messages dropped since the last one logged in full, if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { count, reasons } = this;
    if (count === 0) return;
    const byReason = [...reasons].map(([reason, n]) => `${reason} ×${n}`).join(", ");
    this.log.line(
      "dropped-burst",
      { count, reasons: Object.fromEntries(reasons) },
      `dropped (not answered) ${count} more message${count === 1 ? "" : "s"} within a second of the last one logged: ${byReason}`,
    );
    this.count = 0;
    reasons.clear();
  }
}
