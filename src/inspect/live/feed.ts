/**
 * @module feed: the messages passing through `wymcp proxy` or `wymcp stdio`, as the live page and `--record` see them.
 * Each message is captured in a bounded ring; it is judged (as `wymcp check` judges a HAR file's messages, in order,
 * pairing each response with its request) only when a page reads the rows or follows the stream, so a proxy with no
 * page open copies each message's bytes into the ring (`held.ts`) and does no more work per message. While a page
 * follows, the messages captured are judged together a few milliseconds later, off the path of the traffic that
 * carried them. Judging goes a slice at a time (`JUDGE_SLICE_MESSAGES`, `JUDGE_SLICE_UNITS`), a turn of the event loop
 * between slices: however much waits, the traffic's own callbacks run between them. No host type.
 */
import { answerId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import { escapeText } from "../../core/log-safe.js";
import { MAX_REPORT_NAME_UNITS, methodOf, type Report, type RuleName } from "../../core/rules.js";
import { judgeInCapture } from "../../check/capture.js";
import { Exchange } from "../../check/exchange.js";
import type { JudgeContext, JudgeOptions } from "../../check/judge.js";
import { Negotiations } from "../../check/negotiation.js";
import { type Capture, HeldCaptures, textOf, unitsOf } from "./held.js";
import { DEFAULT_MAX_ROWS, DEFAULT_MAX_TEXT, type RowSource, type RowsPage } from "../ring.js";
import { JsonRows } from "./json-rows.js";
import type { InspectRow } from "../row.js";

export { type Capture, textOf };

/**
 * The era of each exchange's request is kept for its server messages, for this many exchanges (an older one's slot
 * goes to a newer one's).
 */
const MAX_EXCHANGE_ERAS = 10_000;

/**
 * While a page follows, how long a captured message waits to be judged with the ones after it: one batch of rows for
 * many messages on a busy proxy, each message's row still on the page well within a second (the listener's own
 * batching adds its delay to this one).
 */
export const JUDGE_BATCH_MS = 20;
/** A batch whose text reaches this many UTF-16 units is judged from the next turn, not after the batch's delay. */
export const JUDGE_BATCH_CHARS = 1024 * 1024;
/** The most messages one slice judges, and the text (UTF-16 units) past which it judges no more (one message at least). */
export const JUDGE_SLICE_MESSAGES = 32;
export const JUDGE_SLICE_UNITS = 32 * 1024;
/**
 * The text (UTF-16 units) one read of the rows has judged for it at most, in slices: the page reads on for more, and
 * many readers of the oldest rows, which give way to the newest as messages pass, judge little each.
 */
export const JUDGE_READ_UNITS = 64 * 1024;

/** Resolves on the event loop's next turn, after the I/O callbacks waiting: the traffic goes first. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class LiveFeed implements RowSource {
  readonly capacity: number;
  /** Captured while no page followed, not judged yet: all older than `pending`'s. */
  private readonly held: HeldCaptures;
  /**
   * Captured while a page follows (or while older ones captured then still wait), not judged yet, oldest first from
   * `start`; a judged one's place is emptied at once.
   */
  private pending: (Capture | undefined)[] = [];
  private start = 0;
  private pendingText = 0;
  /** The rows judged, kept as their JSON (json-rows.ts). */
  private readonly ring: JsonRows;
  private followers = 0;
  /** What judges the next slice for the pages following: the batch's timer, or the next turn while a backlog lasts. */
  private batch: NodeJS.Timeout | undefined;
  private turn: NodeJS.Immediate | undefined;
  private readonly exchange = new Exchange();
  private readonly negotiated = new Negotiations();
  /** Slot `entry % MAX_EXCHANGE_ERAS`: whose request era it holds, and the era (a map's oldest-first eviction cost more than the judging). */
  private readonly eraEntries = new Float64Array(MAX_EXCHANGE_ERAS);
  private readonly eras: (Era | undefined)[] = new Array<Era | undefined>(MAX_EXCHANGE_ERAS).fill(undefined);
  /** Slot `entry % MAX_EXCHANGE_ERAS`: the last exchange whose request was captured. */
  private readonly requestEntries = new Float64Array(MAX_EXCHANGE_ERAS);
  /** Every capture, judged or not, as it passes (`--record`). */
  onCapture: ((capture: Capture) => void) | undefined;
  /** What the face reported of a request after admitting it, by the message it names, until that request's row is judged. */
  private readonly reportsByKey = new Map<string, Report[]>();

  constructor(
    /** The face's name: the rows' source (`proxy` or `stdio`). */
    readonly source: string,
    private readonly options: JudgeOptions,
    capacity = DEFAULT_MAX_ROWS,
    private readonly maxText = DEFAULT_MAX_TEXT,
  ) {
    this.capacity = capacity;
    this.ring = new JsonRows(capacity, maxText);
    this.held = new HeldCaptures(capacity);
  }

  /**
   * A message passed: recorded, then kept in the bounded ring; while a page follows, judged with the others of its
   * batch within `JUDGE_BATCH_MS` (from the next turn once the batch's text reaches `JUDGE_BATCH_CHARS`), a slice a turn.
   */
  capture(capture: Capture): void {
    if (this.onCapture) {
      try {
        this.onCapture(capture);
      } catch {
        // The recorder's trouble is its own (it reports it); traffic goes on.
      }
    }
    // Messages go after those captured while a page followed for as long as any of them waits: judged in order.
    if (this.followers > 0 || this.start < this.pending.length) {
      this.pending.push(capture);
      this.pendingText += unitsOf(capture);
      this.schedule();
    } else this.held.add(capture);
    // One bound for all: rows judged while a page followed give way to the messages since, oldest first.
    while (
      this.ring.size > 0 &&
      (this.ring.size + this.waiting > this.capacity || this.ring.textUnits + this.held.textUnits + this.pendingText > this.maxText)
    )
      this.ring.dropOldest();
    while (this.waiting > this.capacity || (this.held.textUnits + this.pendingText > this.maxText && this.waiting > 1)) {
      if (this.held.size > 0) {
        this.held.dropOldest();
        continue;
      }
      this.pendingText -= unitsOf(this.pending[this.start]!);
      this.pending[this.start++] = undefined;
    }
    this.compactPending();
    if (this.batch !== undefined && this.pendingText >= JUDGE_BATCH_CHARS) {
      clearTimeout(this.batch);
      this.batch = undefined;
      this.turn ??= setImmediate(() => this.judgeBatch());
    }
  }

  /**
   * Each report the face makes (its `onReport`): one of a client's request after admitting it (the server's tools, the
   * lock) is held for that request's row, found by its id, method and tool when it is judged (the face judges a call's
   * tool before the feed judges its capture). The admission's own reports are the judging's, found again from the bytes;
   * a server's message's, the outbound judging's. At most `capacity` requests' are held, the oldest dropped first.
   */
  report(report: Report): void {
    if (report.direction !== "in" || !AFTER_ADMISSION.has(report.rule)) return;
    held(this.reportsByKey, reportKey(report.id, report.method, report.tool), report, this.capacity);
  }

  /** The reports held for a client's request just judged, taken off the table. */
  private reportsFor(body: unknown): Report[] | undefined {
    const params = typeof body === "object" && body !== null ? (body as { params?: { name?: unknown } }).params : undefined;
    const name = typeof params?.name === "string" ? escapeText(params.name, MAX_REPORT_NAME_UNITS) : undefined;
    const key = reportKey(body === undefined ? undefined : answerId(body), methodOf(body), name);
    const found = this.reportsByKey.get(key);
    if (found) this.reportsByKey.delete(key);
    return found;
  }

  /** The rows held, oldest first; every message waiting is judged first, at once (the tests' reading, not the listener's). */
  rows(): InspectRow[] {
    while (this.waiting > 0) this.judgeSlice();
    return this.ring.rows();
  }

  /**
   * At most `limit` rows after row `after` in at most `maxBytes` (`RowSource.page`). A reader with rows judged after its
   * cursor gets those; one at the end of what is judged has what waits judged for it, a slice a turn, as far as its page
   * needs and `JUDGE_READ_UNITS` at most (a reader gone, `gone()`, stops it). So readers of the oldest rows, which give
   * way to the newest as messages pass, do not judge what waits again and again.
   */
  async page(after: number, limit: number, maxBytes: number, gone: () => boolean = () => false): Promise<RowsPage> {
    const judgedAfter = this.ring.last - Math.max(after, this.ring.last - this.ring.size);
    // Rows numbered after `after` can come of what waits only while it is before the last number it would take.
    let judged = 0;
    if (judgedAfter <= 0)
      while (
        judged < JUDGE_READ_UNITS &&
        this.waiting > 0 &&
        after < this.ring.last + this.waiting &&
        this.ring.short(after, limit, maxBytes) &&
        !gone()
      ) {
        judged += this.judgeSlice();
        await nextTurn();
      }
    return this.ring.page(after, limit, maxBytes, this.waiting > 0);
  }

  /**
   * Each row from now on (and its event), judged in batches as messages pass; returns the function that stops it. What
   * waits already is judged too, a slice a turn, and told.
   */
  subscribe(listener: (row: InspectRow, event: string) => void): () => void {
    this.followers++;
    const stop = this.ring.subscribe(listener);
    if (this.waiting > 0) this.schedule();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.followers--;
      stop();
    };
  }

  /** How many captures wait to be judged (while a page follows, those of the batch not judged yet). */
  get waiting(): number {
    return this.held.size + this.pending.length - this.start;
  }

  /** The next slice's judging for the pages following, after the batch's delay. */
  private schedule(): void {
    if (this.turn === undefined) this.batch ??= setTimeout(() => this.judgeBatch(), JUDGE_BATCH_MS);
  }

  /** One slice; while messages still wait for a page, or captured while one followed, the next one on the next turn. */
  private judgeBatch(): void {
    clearTimeout(this.batch);
    this.batch = undefined;
    this.turn = undefined;
    this.judgeSlice();
    if (this.start < this.pending.length || (this.followers > 0 && this.waiting > 0)) this.turn = setImmediate(() => this.judgeBatch());
  }

  /**
   * Judges the oldest messages waiting: `JUDGE_SLICE_MESSAGES` at most, none more once their text reaches
   * `JUDGE_SLICE_UNITS`; returns their text's units.
   */
  private judgeSlice(): number {
    let count = 0;
    let units = 0;
    if (this.held.size > 0)
      for (const capture of this.held.takeOldest(JUDGE_SLICE_MESSAGES, JUDGE_SLICE_UNITS)) {
        count++;
        units += unitsOf(capture);
        this.judge(capture);
      }
    // The held are older than the pending: those go once none is held.
    while (
      this.held.size === 0 &&
      this.start < this.pending.length &&
      count < JUDGE_SLICE_MESSAGES &&
      (count === 0 || units < JUDGE_SLICE_UNITS)
    ) {
      const capture = this.pending[this.start]!;
      this.pending[this.start++] = undefined;
      const size = unitsOf(capture);
      this.pendingText -= size;
      units += size;
      count++;
      this.judge(capture);
    }
    this.compactPending();
    return units;
  }

  /** The emptied places before `start` go once they are half the array (or all of it). */
  private compactPending(): void {
    if (this.start === this.pending.length) {
      if (this.start > 0) this.pending = [];
      this.start = 0;
    } else if (this.start >= 1024 && 2 * this.start >= this.pending.length) {
      this.pending = this.pending.slice(this.start);
      this.start = 0;
    }
  }

  /** As `wymcp check` judges a HAR file's message: its exchange's headers and sender, its request's era for a server's. */
  private judge(capture: Capture): void {
    // Over HTTP with no session, a response pairs with its own exchange's request: concurrent clients reuse ids.
    const session = capture.headers?.["mcp-session-id"] ?? (capture.headers ? `#${capture.entry}` : "");
    const negotiation = capture.headers?.["mcp-session-id"] ?? capture.session;
    const slot = capture.entry % MAX_EXCHANGE_ERAS;
    const requestEra =
      capture.from === "server" && capture.part !== undefined && this.eraEntries[slot] === capture.entry ? this.eras[slot] : undefined;
    // Built field by field: object spread on this path cost more than the judging itself.
    const context: JudgeContext = { from: capture.from, pair: (id) => this.exchange.answer(session, id, capture.from) };
    if (capture.headers) context.headers = capture.headers;
    if (capture.part !== undefined) context.part = capture.part;
    if (requestEra) context.exchangeEra = { era: requestEra, eraSignal: "request" };
    // The proxy's gate judged this request already: its verdict is taken when it is the one judging gives (judge.ts).
    if (capture.admitted !== undefined) context.admitted = capture.admitted;
    if (capture.refused !== undefined) context.refused = capture.refused;
    if (capture.own !== undefined) context.own = capture.own;
    // Decoded here, off the traffic's path; bytes that are not UTF-8 are judged from their text (U+FFFD) encoded again,
    // as they are when kept with no page following.
    const text = textOf(capture);
    const bytes =
      text === undefined ? undefined : capture.bytes !== undefined && !text.includes("\uFFFD") ? capture.bytes : Buffer.from(text, "utf8");
    const { verdict, body } = judgeInCapture({ source: this.source, line: capture.entry, bytes, context }, this.options, {
      exchange: this.exchange,
      session,
      negotiated: this.negotiated,
      negotiation: capture.headers || capture.session ? negotiation : "",
    });
    if (capture.from === "client" && this.reportsByKey.size > 0 && verdict.direction === "in") {
      const reports = this.reportsFor(body);
      if (reports && verdict.outcome !== "reject" && verdict.kind !== null) (verdict as { reports?: Report[] }).reports = reports;
    }
    if (capture.part === "request") {
      this.requestEntries[slot] = capture.entry;
      if (verdict.era) {
        this.eraEntries[slot] = capture.entry;
        this.eras[slot] = verdict.era;
      }
    } else if (verdict.answers === undefined && capture.own !== undefined && this.requestEntries[slot] === capture.entry) {
      // wymcp's answer to a request it could not pair by id (refused unread, or with no valid id): its exchange's.
      verdict.answers = { line: capture.entry, part: "request", from: "client" };
    }
    // The page parses the text itself: the ring holds no second copy of each message as objects.
    this.ring.push({ verdict, body: undefined, text }, capture.time);
  }
}

/** The rules a face applies after admitting a request: their reports come from the face, not from judging the bytes. */
const AFTER_ADMISSION: ReadonlySet<RuleName> = new Set<RuleName>(["lock", "paramHeaders", "toolArguments"]);

/** The message a report names, as a key: its id (under the answers' rules), method and tool, each as reports escape them. */
function reportKey(id: unknown, method: string | undefined, tool: string | undefined): string {
  return `${JSON.stringify(id ?? null)}\u0000${method ?? ""}\u0000${tool ?? ""}`;
}

/** One more report under `key`, the oldest key dropped past `capacity`. */
function held<K>(table: Map<K, Report[]>, key: K, report: Report, capacity: number): void {
  const list = table.get(key);
  if (list) return void list.push(report);
  table.set(key, [report]);
  if (table.size > capacity) table.delete(table.keys().next().value as K);
}
