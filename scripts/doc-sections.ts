/**
 * @module doc-sections: the commands that measure figures write them into docs/ themselves, between markers
 * (`<!-- bench:NAME -->` … `<!-- /bench:NAME -->`), with the date and the machine, so that no figure is copied by hand.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** Where `npm run bench` writes its tables. */
export const PERFORMANCE_DOC = join(root, "docs", "performance.md");

/**
 * `text` with what lies between the markers of `key` replaced by `markdown`; a key with no markers yet is appended at
 * the end, so a new section needs no edit of the document.
 * @example replaceSection(doc, "bench:startup", "```text\n...\n```")
 */
export function replaceSection(text: string, key: string, markdown: string): string {
  if (!/^[\w:.-]+$/.test(key)) throw new Error(`section key ${JSON.stringify(key)} must be letters, digits, _ : . or -`);
  const open = `<!-- ${key} -->`;
  const close = `<!-- /${key} -->`;
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const start = text.indexOf(open);
  if (start < 0) return `${text.trimEnd()}\n\n${block}\n`;
  const end = text.indexOf(close, start);
  if (end < 0) throw new Error(`${open} has no ${close}`);
  if (text.indexOf(open, start + open.length) >= 0) throw new Error(`${open} appears twice`);
  return text.slice(0, start) + block + text.slice(end + close.length);
}

/** Writes one section of a document (created if missing). */
export function writeDocSection(file: string, key: string, markdown: string): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, replaceSection(text, key, markdown));
}

/** What a provenance line says, as data: a results file and a chart's caption carry it. */
export interface Provenance {
  command: string;
  /** ISO 8601, UTC. */
  date: string;
  cpu: string;
  cores: number;
  node: string;
  /** `platform/arch`, as `linux/x64`. */
  platform: string;
  /** The load average over 1, 5 and 15 minutes. */
  load: number[];
}

/** The command, the date, the CPU model, cores, Node and the load average (1, 5 and 15 minutes) of this process now. */
export function provenanceOf(command: string, date = new Date()): Provenance {
  return {
    command,
    date: date.toISOString(),
    cpu: cpus()[0]?.model.trim() ?? "unknown CPU",
    cores: cpus().length,
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    load: loadavg().map((n) => Number(n.toFixed(2))),
  };
}

/** `2026-12-03 10:11 UTC`: the minute a section or a chart was written. */
export const minuteOf = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** The load average as the provenance line prints it: `1.12 / 1.05 / 1.21`. */
export const loadOf = (p: Provenance) => p.load.map((n) => n.toFixed(2)).join(" / ");

/**
 * One line saying which command measured a section, when, and on what: the CPU model, cores, Node and the load
 * average (1, 5 and 15 minutes) as the section is written.
 */
export function provenance(command: string, date = new Date()): string {
  return provenanceLine(provenanceOf(command, date));
}

/** The provenance line of facts recorded earlier (a results file's). */
export function provenanceLine(p: Provenance): string {
  return `Written by \`${p.command}\` on ${minuteOf(p.date)}: ${p.cpu}, ${p.cores} cores, Node ${p.node} (${p.platform}), load average ${loadOf(p)} (1 / 5 / 15 min).`;
}

/**
 * Writes one section of docs/performance.md, `<!-- bench:NAME -->`, headed by its provenance line: a bench section
 * (the adversarial table, the HTTP flood, tool schemas, ...) plugs in with one call.
 * @example writeBenchSection("startup", "#### Start-up\n\n```text\n" + startupTable(startup) + "\n```")
 */
export function writeBenchSection(name: string, markdown: string, command = "npm run bench"): void {
  writeDocSection(PERFORMANCE_DOC, `bench:${name}`, `${provenance(command)}\n\n${markdown.trim()}`);
}

/** A printed bench table as a section: its heading (the printed `## ` line) in bold, the table in a `text` block. */
export function textSection(heading: string, ...body: string[]): string {
  return `**${heading.replace(/^#+\s*/, "")}**\n\n\`\`\`text\n${body.join("\n").trimEnd()}\n\`\`\``;
}
