/**
 * @module json-view: a message as indented JSON, one element per line, every string from the traffic set as text
 * (never as HTML). A failing location (a JSON Pointer) marks the line of its value, or of the nearest enclosing value
 * the message has (a missing member marks its object), with its messages beside it.
 */
import type { LocatedError } from "../../core/envelope.js";

function pointerPart(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The pointers of the message that exist, for finding where a failing location is shown. */
function collect(value: unknown, pointer: string, into: Set<string>): void {
  into.add(pointer);
  if (Array.isArray(value)) value.forEach((item, i) => collect(item, `${pointer}/${i}`, into));
  else if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value)) collect(item, `${pointer}/${pointerPart(key)}`, into);
}

/** The pointer a location is shown at: itself when the message has it, else its nearest ancestor. */
export function shownAt(pointer: string, present: ReadonlySet<string>): string {
  let at = pointer;
  while (at !== "" && !present.has(at)) at = at.slice(0, at.lastIndexOf("/"));
  return at;
}

/**
 * The lines of `value` as elements, failing ones with class `fail` and a note of their messages.
 * @example view.append(renderJson(body, verdictLocations))
 */
export function renderJson(doc: Document, value: unknown, locations: readonly LocatedError[]): HTMLElement {
  const present = new Set<string>();
  collect(value, "", present);
  const notes = new Map<string, string[]>();
  for (const { instancePath, messages } of locations) {
    const at = shownAt(instancePath, present);
    const list = notes.get(at) ?? [];
    for (const message of messages) list.push(at === instancePath ? message : `${instancePath}: ${message}`);
    notes.set(at, list);
  }
  const root = doc.createElement("div");
  root.className = "json";
  jsonLines(value, (pointer, text) => {
    const el = doc.createElement("div");
    el.className = "line";
    el.dataset.pointer = pointer;
    el.textContent = text;
    const note = notes.get(pointer);
    if (note) {
      el.classList.add("fail");
      const aside = doc.createElement("span");
      aside.className = "note";
      aside.textContent = note.join("; ");
      el.append(aside);
      notes.delete(pointer);
    }
    root.append(el);
  });
  return root;
}

/**
 * Each line of `value` as the pane shows it (indented, one element a line; a string as JSON writes it, so a character
 * the capture escaped as `\u0141` reads `Ł`), with the pointer of its value.
 */
export function jsonLines(value: unknown, line: (pointer: string, text: string) => void): void {
  // `at`: the value's pointer, its depth, what goes before it on its line (its key) and after it (a comma).
  const walk = (item: unknown, at: { pointer: string; depth: number; prefix: string; comma: string }) => {
    const { pointer, prefix, comma } = at;
    const indent = "  ".repeat(at.depth);
    const depth = at.depth + 1;
    if (Array.isArray(item) && item.length > 0) {
      line(pointer, `${indent}${prefix}[`);
      item.forEach((child, i) => walk(child, { pointer: `${pointer}/${i}`, depth, prefix: "", comma: i < item.length - 1 ? "," : "" }));
      line(`${pointer}#end`, `${indent}]${comma}`);
    } else if (typeof item === "object" && item !== null && !Array.isArray(item) && Object.keys(item).length > 0) {
      const entries = Object.entries(item);
      line(pointer, `${indent}${prefix}{`);
      entries.forEach(([key, child], i) =>
        walk(child, {
          pointer: `${pointer}/${pointerPart(key)}`,
          depth,
          prefix: `${JSON.stringify(key)}: `,
          comma: i < entries.length - 1 ? "," : "",
        }),
      );
      line(`${pointer}#end`, `${indent}}${comma}`);
    } else line(pointer, `${indent}${prefix}${JSON.stringify(item) ?? String(item)}${comma}`);
  };
  walk(value, { pointer: "", depth: 0, prefix: "", comma: "" });
}

/** The text the pane shows of `value`, its lines joined: what the page's text filter searches. */
export function shownText(value: unknown): string {
  const lines: string[] = [];
  jsonLines(value, (_pointer, text) => lines.push(text.trimStart()));
  return lines.join("\n");
}
