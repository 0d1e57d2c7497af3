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

/**
 * One line saying which command measured a section, when, and on what: the CPU model, cores, Node and the load
 * average (1, 5 and 15 minutes) as the section is written.
 */
export function provenance(command: string, date = new Date()): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const load = loadavg()
    .map((n) => n.toFixed(2))
    .join(" / ");
  return `Written by \`${command}\` on ${date.toISOString().slice(0, 16).replace("T", " ")} UTC: ${cpu}, ${cpus().length} cores, Node ${process.version} (${process.platform}/${process.arch}), load average ${load} (1 / 5 / 15 min).`;
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
