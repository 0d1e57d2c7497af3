/**
 * @module main: the inspector's page. Rows come from the listener (`/rows`, then `/events`) and from the paste box,
 * judged here by the same code as `wymcp check`; a filter and a virtual list keep ten thousand rows responsive; a row
 * opens its message with each failing location marked. Every value from traffic is set as text, never as HTML.
 */
import { exportHar, exportJsonl } from "../export.js";
import { DEFAULT_MAX_ROWS } from "../ring.js";
import { type InspectRow, positionKey, type RowFacts, type RowInput, rowFacts } from "../row.js";
import { renderJson, shownText } from "./json-view.js";
import { type Choice, judgeText, REVISIONS } from "./judge-text.js";

interface ViewRow extends InspectRow {
  /** The page's own number for it: the listener's `seq` and pasted rows' never collide. */
  id: number;
  facts: RowFacts;
  key: string;
  /** Lower-cased text the text filter searches: what the row and its pane show (a `\u0141` of the capture as `ł`). */
  haystack: string;
}

const ROW_HEIGHT = 24;
const OVERSCAN = 10;

function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el;
}

function span(className: string, text: string): HTMLSpanElement {
  const el = document.createElement("span");
  el.className = className;
  el.textContent = text;
  return el;
}

let capacity = DEFAULT_MAX_ROWS;
let rows: ViewRow[] = [];
let shown: ViewRow[] = [];
let selected: ViewRow | undefined;
let nextId = 1;
/** The last row of the listener's the page has: an event stream reopened after a snapshot skips what it already has. */
let serverSeq = 0;
/** The number of the last of the listener's rows read (from /rows or the event stream): /rows is read on from it. */
let cursor = 0;
let pastes = 0;
/** Whether the rows' times are when each message passed (a live face's), so that a pair's latency means something. */
let liveTimes = false;
/** The listener's token, when it has one: sent with each request for rows, never as a cookie (see `withToken`). */
const token = takeToken();
/** The listener's rows the page holds, by `seq`: a snapshot read after the stream opened adds only what is missing. */
const held = new Set<number>();

const byPosition = new Map<string, ViewRow>();
const answeredBy = new Map<string, ViewRow>();

const list = $("list");
const spacer = $("spacer");
const body = $("rows");
const detail = $("detail");
const count = $("count");
const verdictFilter = $("filter-verdict") as HTMLSelectElement;
const methodFilter = $("filter-method") as HTMLInputElement;
const textFilter = $("filter-text") as HTMLInputElement;

function add(inputs: readonly (RowInput & { seq?: number; time?: number })[]): void {
  for (const input of inputs) {
    if (input.seq !== undefined) serverSeq = Math.max(serverSeq, input.seq);
    const { verdict } = input;
    const id = nextId++;
    // The live listener sends the text alone: the page parses it, the proxy does not hold it twice.
    const body = input.body === undefined && input.text !== undefined ? parsed(input.text) : input.body;
    const row: ViewRow = {
      ...input,
      body,
      id,
      seq: input.seq ?? 0,
      time: input.time ?? Date.now(),
      facts: rowFacts({ ...input, body }),
      key: positionKey(verdict.source, verdict.line, verdict.part),
      haystack: "",
    };
    row.haystack =
      `${row.facts.method} ${whereOf(verdict)} ${row.facts.shown} ${body !== undefined ? shownText(body) : (input.text ?? "")}`.toLowerCase();
    byPosition.set(row.key, row);
    const answers = verdict.answers;
    if (answers) answeredBy.set(positionKey(verdict.source, answers.line, answers.part), row);
    rows.push(row);
  }
  // The page holds `capacity` rows, as the listener's ring does: the oldest go first.
  if (rows.length > capacity) {
    for (const gone of rows.slice(0, rows.length - capacity)) {
      byPosition.delete(gone.key);
      held.delete(gone.seq);
      const answers = gone.verdict.answers;
      if (answers) answeredBy.delete(positionKey(gone.verdict.source, answers.line, answers.part));
    }
    rows = rows.slice(rows.length - capacity);
  }
  applyFilter();
}

/**
 * The listener's token, from the page's address (`?token=`, then taken out of it and out of the history) or from this
 * tab's storage (a reload). Kept by the page alone: a cookie would go to every port of the host, the proxy's included.
 */
function takeToken(): string | undefined {
  const url = new URL(location.href);
  const given = url.searchParams.get("token");
  if (given !== null) {
    sessionStorage.setItem("wymcp-ui-token", given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url);
    return given;
  }
  return sessionStorage.getItem("wymcp-ui-token") ?? undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function applyFilter(): void {
  const verdict = verdictFilter.value;
  const method = methodFilter.value.trim().toLowerCase();
  const text = textFilter.value.trim().toLowerCase();
  shown = rows.filter(
    (row) =>
      (verdict === "" ||
        (verdict === "fail"
          ? row.facts.verdict === "reject" || row.facts.verdict === "violation"
          : verdict === "error"
            ? row.facts.error !== undefined
            : verdict === "wymcp"
              ? row.facts.own !== undefined
              : verdict === "would-refuse"
                ? row.facts.reports.length > 0
                : row.facts.verdict === verdict)) &&
      (method === "" || row.facts.method.toLowerCase().includes(method)) &&
      (text === "" || row.haystack.includes(text)),
  );
  count.textContent = `${shown.length} of ${rows.length} rows (at most ${capacity})`;
  spacer.style.height = `${shown.length * ROW_HEIGHT}px`;
  renderRows();
}

function timeOf(ms: number): string {
  return new Date(ms).toISOString().slice(11, 23);
}

/** `proxy:12 event 1`: the source, then the line (or entry) and part, which the column never cuts off. */
function whereOf(verdict: RowInput["verdict"]): string {
  return `${verdict.source}:${verdict.line}${verdict.part ? ` ${verdict.part}` : ""}`;
}

/** The place of a row: its source (cut from the left when long), then its line and part, always shown whole. */
function whereCell(verdict: RowInput["verdict"]): HTMLSpanElement {
  const cell = span("where", "");
  cell.title = whereOf(verdict);
  cell.append(span("source", verdict.source), span("at", `:${verdict.line}${verdict.part ? ` ${verdict.part}` : ""}`));
  return cell;
}

/** The row a row is paired with: a response's request, or a request's response. */
function pairOf(row: ViewRow): ViewRow | undefined {
  const { verdict } = row;
  return verdict.answers
    ? byPosition.get(positionKey(verdict.source, verdict.answers.line, verdict.answers.part))
    : answeredBy.get(row.key);
}

/** How long the answer took, from its request's row to its own (live rows only: a file's rows carry no such times). */
function latencyOf(row: ViewRow, pair: ViewRow | undefined): string {
  if (!liveTimes || pair === undefined || row.seq === 0 || pair.seq === 0) return "";
  return `${Math.max(0, Math.abs(row.time - pair.time))} ms`;
}

/** The direction's words: wymcp's own answer goes back to the client as the server's would, and says whose it is. */
function directionOf(facts: RowFacts): string {
  return facts.own !== undefined ? "← wymcp" : facts.direction === "in" ? "→ in" : "← out";
}

function renderRows(): void {
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW_HEIGHT) + OVERSCAN);
  body.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
  const fragment = document.createDocumentFragment();
  for (let i = first; i < last; i++) {
    const row = shown[i]!;
    const { facts, verdict } = row;
    const el = document.createElement("div");
    el.className = `row ${facts.verdict}${facts.own ? " own" : ""}${facts.error ? " error" : ""}${facts.reports.length > 0 ? " reported" : ""}${row === selected ? " selected" : ""}`;
    el.dataset.id = String(row.id);
    el.append(
      span("time", timeOf(row.time)),
      whereCell(verdict),
      span("dir", directionOf(facts)),
      span("era", `${facts.era} ${facts.revision}`.trim()),
      span("method", facts.method),
      span("verdict", facts.shown),
      span("code", facts.code === undefined ? "" : String(facts.code)),
      span("latency", latencyOf(row, pairOf(row))),
    );
    fragment.append(el);
  }
  body.replaceChildren(fragment);
}

function select(row: ViewRow | undefined): void {
  selected = row;
  renderRows();
  if (!row) {
    detail.replaceChildren();
    return;
  }
  const { facts, verdict } = row;
  const head = document.createElement("div");
  head.className = "head";
  head.append(
    span("method", facts.method || "(no method)"),
    span(
      `verdict ${facts.verdict}${facts.own ? " own" : ""}${facts.error ? " error" : ""}${facts.reports.length > 0 ? " reported" : ""}`,
      facts.shown,
    ),
    span("era", `${facts.era} ${facts.revision}`.trim()),
    span("where", whereOf(verdict)),
  );
  if ("definition" in verdict && verdict.definition) head.append(span("definition", verdict.definition));
  const pair = pairOf(row);
  if (pair) {
    const button = document.createElement("button");
    button.id = "pair";
    const latency = latencyOf(row, pair);
    button.textContent = `${verdict.answers ? "request" : "response"}: line ${pair.verdict.line}${latency ? ` (${latency})` : ""}`;
    button.addEventListener("click", () => select(pair));
    head.append(button);
  }
  const parts: HTMLElement[] = [head];
  // Whose answer it is, when it is wymcp's: the server never saw the call, or could not answer it.
  if (facts.own) {
    const { answer, status, reason } = facts.own;
    const facts2 = [status, reason].filter((f) => f !== undefined).join(" ");
    parts.push(
      span(
        "own-note",
        `${answer === "refused" ? "wymcp's own answer: the call was refused, never handed to the server" : "wymcp's own answer: the upstream server failed"}${facts2 ? ` (${facts2})` : ""}`,
      ),
    );
  }
  // What each rule in report would have refused of it: the message went on, and this is what enforcing would answer.
  for (const report of facts.reports) {
    const answer = [report.status, report.code].filter((f) => f !== undefined).join(" ");
    parts.push(span("report-note", `would refuse (rule ${report.rule})${answer ? `: ${answer}` : ""}: ${report.message}`));
  }
  if (facts.locations.length > 0) {
    const ul = document.createElement("ul");
    ul.className = "locations";
    for (const { instancePath, messages } of facts.locations) {
      const li = document.createElement("li");
      li.append(span("pointer", instancePath || "(the message)"), span("messages", messages.join("; ")));
      ul.append(li);
    }
    parts.push(ul);
  }
  if (verdict.outcome === "reject" && facts.locations.length === 0)
    parts.push(span("reason", `${verdict.reason}: ${verdict.response.error.message}`));
  if (verdict.outcome === "bypass") parts.push(span("reason", `bypass: ${verdict.reason}`));
  if (row.body !== undefined) parts.push(renderJson(document, row.body, facts.locations));
  else {
    const pre = document.createElement("pre");
    pre.className = "raw";
    pre.textContent =
      row.text ??
      (verdict.outcome === "reject" && verdict.reason !== "body-too-large"
        ? `(not read: refused ${verdict.status} before its body was read)`
        : "(over the size limit: not kept)");
    parts.push(pre);
  }
  detail.replaceChildren(...parts);
}

list.addEventListener("scroll", () => requestAnimationFrame(renderRows));
for (const input of [verdictFilter, methodFilter, textFilter]) input.addEventListener("input", applyFilter);
body.addEventListener("click", (event) => {
  const id = Number((event.target as HTMLElement).closest<HTMLElement>(".row")?.dataset.id);
  select(rows.find((row) => row.id === id));
});

// Paste or drop: judged here, as one capture, under the era or revision picked.
const paste = $("paste") as HTMLTextAreaElement;
const eraPick = $("pick-era") as HTMLSelectElement;
const revisionPick = $("pick-revision") as HTMLSelectElement;
for (const revision of REVISIONS) {
  const option = document.createElement("option");
  option.value = revision;
  option.textContent = revision;
  revisionPick.append(option);
}
function judgePaste(): void {
  if (paste.value.trim() === "") return;
  const choice: Choice = { era: eraPick.value as Choice["era"], revision: revisionPick.value || undefined };
  const source = `pasted ${++pastes}`;
  let judged: RowInput[];
  try {
    judged = judgeText(paste.value, source, choice);
  } catch (error) {
    // A HAR file whose entries are not what a HAR file holds: said, and the page goes on.
    $("paste-note").textContent = `cannot read it: ${error instanceof Error ? error.message : String(error)}`;
    return;
  }
  $("paste-note").textContent = `${judged.length} message${judged.length === 1 ? "" : "s"} judged as ${source}`;
  add(judged);
  const added = rows.at(-1);
  if (added?.verdict.source === source) select(added);
}
$("judge").addEventListener("click", judgePaste);
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => {
  event.preventDefault();
  const file = event.dataTransfer?.files[0];
  if (file)
    void file.text().then((text) => {
      paste.value = text;
      judgePaste();
    });
});

// Export: what the filter shows, redacted unless asked, as JSONL or as a HAR file.
function download(kind: "jsonl" | "har"): void {
  const reveal = ($("reveal") as HTMLInputElement).checked;
  const { text, left } = kind === "jsonl" ? exportJsonl(shown, reveal) : exportHar(shown, reveal);
  const count = shown.length - left;
  $("export-note").textContent =
    `${count} message${count === 1 ? "" : "s"} exported${left ? `, ${left} without a text left out (over the size limit, or refused unread)` : ""}`;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: kind === "jsonl" ? "application/jsonl" : "application/json" }));
  link.download = `wymcp-inspect.${kind}`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
$("export").addEventListener("click", () => download("jsonl"));
$("export-har").addEventListener("click", () => download("har"));

function addServerRows(incoming: readonly InspectRow[]): void {
  const fresh = incoming.filter((row) => !held.has(row.seq) && row.seq > serverSeq - capacity);
  for (const row of fresh) held.add(row.seq);
  if (fresh.length > 0) add(fresh);
}

/** The read of /rows under way, if any, and whether another was asked for meanwhile. */
let reading: Promise<void> | undefined;
let readAgain = false;

// Rows of the event stream are added together every 50 ms: a busy proxy's messages cost one filter pass per batch,
// and a page in a background tab (its timers slowed) holds at most `capacity` rows waiting.
let arriving: InspectRow[] = [];
function arrived(row: InspectRow): void {
  if (arriving.length === 0) setTimeout(flushArrived, 50);
  arriving.push(row);
  cursor = Math.max(cursor, row.seq);
  if (arriving.length > capacity) arriving = arriving.slice(arriving.length - capacity);
}
function flushArrived(): void {
  // A read of /rows under way goes first: its rows are older, and the list stays in the listener's order.
  if (reading) return void setTimeout(flushArrived, 50);
  const batch = arriving;
  arriving = [];
  addServerRows(batch);
}

/** One answer of /rows: a page of rows after the cursor asked for, and where to read on from. */
interface RowsAnswer {
  capacity: number;
  title?: string;
  /** The cursor to read on from, and whether rows after it are there to read. */
  next: number;
  more: boolean;
  rows: InspectRow[];
}

/** The listener's answer to one read of /rows; a listener busy with other reads (503) is asked again a moment later. */
async function rowsAfter(after: number): Promise<RowsAnswer> {
  for (let tries = 1; ; tries++) {
    const answer = await fetch(`rows?after=${after}`, {
      credentials: "omit",
      headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    });
    if (answer.ok) return (await answer.json()) as RowsAnswer;
    if (answer.status !== 503 || tries === 20) throw new Error(`${answer.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250 * tries));
  }
}

/** Reads /rows page after page from the cursor until the page has every row the listener holds. */
async function readRows(): Promise<void> {
  // The pages go on from the last one's end: rows the stream brings meanwhile move `cursor`, not this read.
  let after = cursor;
  for (;;) {
    const page = await rowsAfter(after);
    capacity = page.capacity;
    if (page.title) {
      document.title = page.title;
      $("title").textContent = page.title;
      liveTimes = page.title.endsWith("(live)");
    }
    addServerRows(page.rows);
    after = page.next;
    if (!page.more) break;
  }
  cursor = Math.max(cursor, after);
  applyFilter();
}

/** One read of /rows at a time: asked again while one goes on, it reads once more after it. */
function catchUp(): Promise<void> {
  if (reading) {
    readAgain = true;
    return reading;
  }
  reading = (async () => {
    try {
      do {
        readAgain = false;
        await readRows();
      } while (readAgain);
    } finally {
      reading = undefined;
    }
  })();
  return reading;
}

/**
 * A row from its event: the row's JSON on the first line; a text sent as it is on the lines after it (the live feed's
 * rows), or none (the text, if any, is in the JSON).
 */
function eventRow(data: string): InspectRow {
  const end = data.indexOf("\n");
  if (end < 0) return JSON.parse(data) as InspectRow;
  const row = JSON.parse(data.slice(0, end)) as InspectRow;
  row.text = data.slice(end + 1);
  return row;
}

async function connect(): Promise<void> {
  try {
    await catchUp();
    // An event stream sends no header of the page's: the token goes in its address (the listener sets no cookie).
    const events = new EventSource(token === undefined ? "events" : `events?token=${encodeURIComponent(token)}`);
    events.onmessage = (event) => arrived(eventRow(event.data as string));
    // Rows judged between the last page read and the stream's start, or missed while a stream the listener closed (a
    // reader that fell behind) reopened by itself, are in /rows after the cursor.
    events.onopen = () => {
      void catchUp().catch(() => undefined);
      $("status").textContent = "connected";
    };
    events.onerror = () => {
      $("status").textContent = "reconnecting";
    };
    $("status").textContent = "connected";
  } catch (error) {
    $("status").textContent = `no listener (${error instanceof Error ? error.message : String(error)}): paste mode only`;
  }
  document.body.dataset.ready = "true";
}
void connect();
