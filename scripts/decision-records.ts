/**
 * @module `npm run docs:decisions`: docs/decisions.md is the index of the records in docs/decisions/, written from each
 * record's own title, status, date and area between `<!-- decisions:index -->` markers. `--check` writes nothing and
 * fails, naming the record, on one that lacks a field or a section, runs over 40 lines, names an area the index does
 * not have, or is missing from the index (npm run docs:check and test/decision-records.test.ts run it).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceSection } from "./doc-sections.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** The folder of the records, and the index, relative to the root. */
export const RECORDS_DIR = "docs/decisions";
export const INDEX_DOC = "docs/decisions.md";
const INDEX_KEY = "decisions:index";

/** The most lines a record may have. */
export const MAX_RECORD_LINES = 40;

/** The sections of a record, in this order. */
export const RECORD_SECTIONS = ["Context", "Decision", "Alternatives measured", "Consequences"] as const;

/** The areas of the index, in its order; a record without `- Area:` is listed last, under "Not yet placed". */
export const AREAS = [
  "codegen",
  "validation",
  "hosts",
  "options",
  "proxy and stdio",
  "observability",
  "packaging",
  "compile",
  "lock",
  "check",
  "transport",
  "tools at the edge",
  "inspect",
  "docs",
  "testing",
  "benchmark",
] as const;
const UNPLACED = "not yet placed";

/**
 * The anchors of the sections decisions.md had when it was one long page, each kept under the area that holds its
 * decisions now, so that a link written then still lands on them.
 */
const FORMER_ANCHORS: Partial<Record<(typeof AREAS)[number], string[]>> = {
  validation: ["the-nesting-bound-maxdepth-default-64"],
  hosts: ["one-gate-pipeline-thin-faces-a-thin-command-line"],
  "proxy and stdio": ["in-front-of-anything-else-plain-handlers-wymcp-proxy-wymcp-stdio"],
  observability: ["the-command-lines---otel"],
  compile: ["wymcp-compile---lint-and---from"],
  lock: ["pinning-the-servers-tools---lock-toolslock"],
  check: ["wymcp-check-on-captures"],
  transport: ["the-transports-letter-host-origin-headers-versions"],
  "tools at the edge": ["the-servers-tools-at-the-edge"],
  inspect: ["wymcp-inspect"],
  docs: ["documentation"],
};

/** One record as its own lines say it. */
export interface DecisionRecord {
  /** The file's name without `.md`. */
  slug: string;
  title: string;
  /** The status line as written: `accepted`, `accepted, supersedes …` or `superseded by …`. */
  status: string;
  date: string;
  area: string | undefined;
  /** The records a `superseded by` status links to, by slug. */
  supersededBy: string[];
  lines: number;
}

/** What is wrong with one record (or with the index), in words that name it. */
export interface RecordProblem {
  file: string;
  problem: string;
}

/** The slugs of the records a text links to in the same folder (`[title](slug.md)`). */
const linkedSlugs = (text: string) => [...text.matchAll(/\]\(([\w-]+)\.md\)/g)].map((m) => m[1]!);

/**
 * A record read from its text, and what is wrong with it: a title on the first line, `- Status:` and `- Date:` (and
 * an optional `- Area:`) before the first section, the four sections in order with something in each, at most 40 lines.
 */
export function parseRecord(slug: string, text: string): { record: DecisionRecord; problems: string[] } {
  const problems: string[] = [];
  const lines = text.replace(/\n+$/, "").split("\n");
  const title = /^# (.+)$/.exec(lines[0] ?? "")?.[1]?.trim() ?? "";
  if (!title) problems.push('its first line is not a title ("# …")');
  const firstSection = lines.findIndex((line) => line.startsWith("## "));
  const head = lines.slice(1, firstSection < 0 ? lines.length : firstSection);
  const field = (name: string) => {
    const found = head.filter((line) => line.startsWith(`- ${name}:`));
    if (found.length > 1) problems.push(`it has ${found.length} "- ${name}:" lines`);
    return found[0]?.slice(name.length + 3).trim();
  };
  const status = field("Status") ?? "";
  const date = field("Date") ?? "";
  const area = field("Area")?.toLowerCase();
  if (!status) problems.push('it has no "- Status:" line before its first section');
  else if (!/^accepted\b/.test(status) && !/^superseded by \S/.test(status))
    problems.push(`its status "${status}" is neither "accepted" (", supersedes …") nor "superseded by …"`);
  if (!date) problems.push('it has no "- Date:" line before its first section');
  else if (
    !/^\d{4}-\d{2}-\d{2}$/.test(date) ||
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    new Date(date).toISOString().slice(0, 10) !== date
  )
    problems.push(`its date "${date}" is not a day written YYYY-MM-DD`);
  if (area !== undefined && !(AREAS as readonly string[]).includes(area))
    problems.push(`its area "${area}" is none of the index's: ${AREAS.join(", ")}`);
  const supersededBy = status.startsWith("superseded by") ? linkedSlugs(status) : [];
  if (status.startsWith("superseded by") && supersededBy.length === 0)
    problems.push("it is superseded by no linked record ([title](slug.md))");
  const sections = lines.map((line, i) => ({ name: /^## (.+)$/.exec(line)?.[1]?.trim(), i })).filter((s) => s.name !== undefined);
  const names = sections.map((s) => s.name);
  if (names.join("|") !== RECORD_SECTIONS.join("|"))
    problems.push(
      `its sections are ${names.length ? names.map((n) => `"${n}"`).join(", ") : "none"}, not ${RECORD_SECTIONS.map((n) => `"${n}"`).join(", ")}`,
    );
  sections.forEach((section, k) => {
    const end = sections[k + 1]?.i ?? lines.length;
    if (lines.slice(section.i + 1, end).every((line) => line.trim() === "")) problems.push(`its section "${section.name}" is empty`);
  });
  if (lines.length > MAX_RECORD_LINES) problems.push(`it has ${lines.length} lines, over ${MAX_RECORD_LINES}`);
  return { record: { slug, title, status, date, area, supersededBy, lines: lines.length }, problems };
}

/** Every record of the folder, by file name, with the problems of each (a superseding record that does not exist included). */
export function readRecords(dir = root): { records: DecisionRecord[]; problems: RecordProblem[] } {
  const folder = join(dir, RECORDS_DIR);
  const files = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith(".md") && f !== "README.md") : [];
  const records: DecisionRecord[] = [];
  const problems: RecordProblem[] = [];
  for (const file of files.sort()) {
    const parsed = parseRecord(file.slice(0, -3), readFileSync(join(folder, file), "utf8"));
    records.push(parsed.record);
    for (const problem of parsed.problems) problems.push({ file: `${RECORDS_DIR}/${file}`, problem });
  }
  const slugs = new Set(records.map((r) => r.slug));
  for (const record of records)
    for (const slug of record.supersededBy)
      if (!slugs.has(slug))
        problems.push({ file: `${RECORDS_DIR}/${record.slug}.md`, problem: `it is superseded by ${slug}.md, which does not exist` });
  return { records, problems };
}

/** The status as the index shows it: links point into the records' folder. */
const indexStatus = (status: string) => status.replace(/\]\(([\w-]+\.md)\)/g, `](decisions/$1)`);

/**
 * The index's generated part: a heading per area in the index's order (with the anchors of the page's former sections
 * that area took over), each record one line with its date, its title linked, and its status unless plainly accepted;
 * by date, then title.
 */
export function renderIndex(records: readonly DecisionRecord[]): string {
  const groups = [...AREAS, UNPLACED].map((area) => ({
    area,
    records: records
      .filter((r) => (r.area ?? UNPLACED) === area)
      .sort((a, b) => a.date.localeCompare(b.date) || a.title.localeCompare(b.title) || a.slug.localeCompare(b.slug)),
  }));
  const superseded = records.filter((r) => r.status.startsWith("superseded")).length;
  const out = [`${records.length} records, ${superseded} of them superseded.`];
  for (const { area, records: listed } of groups) {
    if (listed.length === 0) continue;
    out.push("", `## ${area[0]!.toUpperCase()}${area.slice(1)}`, "");
    const former = FORMER_ANCHORS[area as keyof typeof FORMER_ANCHORS];
    if (former) out.push(former.map((id) => `<a id="${id}"></a>`).join(""), "");
    for (const r of listed) {
      const status = r.status === "accepted" ? "" : ` (${indexStatus(r.status)})`;
      out.push(`- ${r.date} [${r.title}](decisions/${r.slug}.md)${status}`);
    }
  }
  return out.join("\n");
}

/** The index with its generated part written from the records. */
export function writtenIndex(indexText: string, records: readonly DecisionRecord[]): string {
  return replaceSection(indexText, INDEX_KEY, renderIndex(records));
}

/** Every problem of the records and of the index: a record missing from it or listed differently, a stale index. */
export function checkDecisions(dir = root): RecordProblem[] {
  const { records, problems } = readRecords(dir);
  const indexFile = join(dir, INDEX_DOC);
  if (!existsSync(indexFile)) return [...problems, { file: INDEX_DOC, problem: "the index does not exist: run npm run docs:decisions" }];
  const index = readFileSync(indexFile, "utf8");
  const listed = new Set([...index.matchAll(/\]\(decisions\/([\w-]+)\.md\)/g)].map((m) => m[1]!));
  for (const record of records)
    if (!listed.has(record.slug))
      problems.push({ file: `${RECORDS_DIR}/${record.slug}.md`, problem: `it is missing from ${INDEX_DOC}: run npm run docs:decisions` });
  if (!index.includes(`<!-- ${INDEX_KEY} -->`)) problems.push({ file: INDEX_DOC, problem: `it has no <!-- ${INDEX_KEY} --> section` });
  else if (writtenIndex(index, records) !== index)
    problems.push({ file: INDEX_DOC, problem: "its list differs from the records' own headings: run npm run docs:decisions" });
  return problems;
}

function main(): number {
  const check = process.argv.includes("--check");
  if (check) {
    const problems = checkDecisions();
    for (const p of problems) console.error(`${p.file}: ${p.problem}`);
    console.log(
      `${readRecords().records.length} decision records: ${problems.length === 0 ? "each complete and in the index" : `${problems.length} problem${problems.length === 1 ? "" : "s"}`}`,
    );
    return problems.length === 0 ? 0 : 1;
  }
  const { records, problems } = readRecords();
  writeFileSync(join(root, INDEX_DOC), writtenIndex(readFileSync(join(root, INDEX_DOC), "utf8"), records));
  for (const p of problems) console.error(`${p.file}: ${p.problem}`);
  console.log(
    `${INDEX_DOC}: ${records.length} records listed${problems.length ? `; ${problems.length} problem${problems.length === 1 ? "" : "s"}` : ""}`,
  );
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
