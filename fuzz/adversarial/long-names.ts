/**
 * @module fuzz/adversarial/long-names: the long-name family. A client's map keys are the one thing of its body an
 * answer quotes (inside locations), so one long key must cost no more than its bounded output, however many errors
 * are located under it. Two shapes per lane, from the generator's own targets (cases.ts):
 * - `member`: at every map location, one member whose name is long (its value an invalid item where the map rejects
 *   one, else any value);
 * - `route`: for every array or map location reached through a map's member, that member's name made long, with
 *   `ROUTE_ITEMS` invalid items at the location, so that every error is located under the long name.
 * Names in three styles (plain, U+2028, mixed escapes) and three sizes (64 KiB, 1 MiB, and as long as the body
 * limit allows, which for a body limit of 4 MiB is a name of nearly 4 MiB).
 */
import { mapKey, type Target } from "./cases.js";
import { ROUTE_KEY } from "./locations.js";

export type NameStyle = "plain" | "u2028" | "mixed";
export const NAME_STYLES: readonly NameStyle[] = ["plain", "u2028", "mixed"];

/** Sizes of the name as JSON text in the body, in bytes; `limit` fills the body up to the body limit. */
export type NameSize = "64 KiB" | "1 MiB" | "limit";
export const NAME_SIZES: readonly NameSize[] = ["64 KiB", "1 MiB", "limit"];

/** Invalid items under a long route name: the red team's case had 80. */
export const ROUTE_ITEMS = 80;

/**
 * The mixed style's repeating unit: what log-safe.ts escapes (ESC, U+2028, a lone surrogate, `…`, a bidi override),
 * what JSON Pointer escapes (`~`, `/`), a backslash, a valid surrogate pair and a plain letter. The lone high
 * surrogate is followed by another high one, so it stays lone.
 */
const MIXED = ["\u001b", "\u2028", "\\", "~", "/", "\ud800", "\ud83d\ude00", "\u2026", "\u202e", "x"].join("");

const UNIT: Record<NameStyle, string> = { plain: "x", u2028: "\u2028", mixed: MIXED };

/** Bytes of `text` as a JSON string's content (without the quotes). */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** A name of `style` taking at most `bytes` bytes as JSON text, as close to it as whole repeating units allow. */
export function longName(style: NameStyle, bytes: number): string {
  const unit = UNIT[style];
  return unit.repeat(Math.max(1, Math.floor(bytes / jsonBytes(unit))));
}

export interface LongNameTarget {
  lane: Target["lane"];
  era: Target["era"];
  direction: Target["direction"];
  via: "member" | "route";
  /** `InputResponses{}` (member), `CreateMessageResult.content|5[] via /params/inputResponses` (route). */
  label: string;
  /** The target the message is built from (its headers, root and judgement path). */
  base: Target;
  kind: string;
  /** Where the long name is: the map holding it. */
  map: string;
  /** Whether the message must be rejected (false for a member of an open map). */
  rejects: boolean;
  /** The message with a name of `style` whose JSON text takes `bytes`, or as many as the body `limit` leaves. */
  message(style: NameStyle, size: NameSize, limit: number): unknown;
  /** The message with the name given. */
  withName(name: string): unknown;
}

/** The long-name targets of every lane (regex and batch targets have no map to put a name in). */
export function longNameTargets(targets: readonly Target[]): LongNameTarget[] {
  const out: LongNameTarget[] = [];
  for (const base of targets) {
    if (base.shape !== "array" && base.shape !== "map") continue;
    const rejecting = base.kinds.filter((k) => base.rejects(k));
    // The kind that fails the most rules per item where there is a choice.
    const kind = ["no-discriminator", "empty-object", "wrong-type"].find((k) => rejecting.includes(k)) ?? base.kinds[0]!;
    if (base.shape === "map") {
      out.push(
        make(base, "member", base.label, kind, base.instancePath, base.rejects(kind), (name) =>
          renamed(base.message(kind, 1), base.instancePath, mapKey(0), name),
        ),
      );
    }
    if (rejecting.length === 0) continue;
    for (const map of base.entries) {
      out.push(
        make(base, "route", `${base.label} via ${map}`, kind, map, true, (name) =>
          renamed(base.message(kind, ROUTE_ITEMS), map, ROUTE_KEY, name),
        ),
      );
    }
  }
  return out;
}

function make(
  base: Target,
  via: LongNameTarget["via"],
  label: string,
  kind: string,
  map: string,
  rejects: boolean,
  withName: (name: string) => unknown,
): LongNameTarget {
  return {
    lane: base.lane,
    era: base.era,
    direction: base.direction,
    via,
    label,
    base,
    kind,
    map,
    rejects,
    withName,
    message(style, size, limit) {
      if (size !== "limit") return withName(longName(style, size === "1 MiB" ? 1024 * 1024 : 64 * 1024));
      const rest = Buffer.byteLength(JSON.stringify(withName(""))) + 2;
      return withName(longName(style, limit - rest));
    },
  };
}

/** `message` with the member `from` of the object at `pointer` renamed `to`, members in their order. */
export function renamed(message: unknown, pointer: string, from: string, to: string): unknown {
  const segments = pointer === "" ? [] : pointer.slice(1).split("/").map(unescapeSegment);
  const rename = (value: unknown, depth: number): unknown => {
    if (depth === segments.length) {
      const object = value as Record<string, unknown>;
      if (!Object.hasOwn(object, from)) throw new Error(`no member ${from} at ${pointer}`);
      const out: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(object)) out[key === from ? to : key] = member;
      return out;
    }
    const key = segments[depth]!;
    if (Array.isArray(value)) return value.map((item, i) => (String(i) === key ? rename(item, depth + 1) : item));
    const object = value as Record<string, unknown>;
    if (!Object.hasOwn(object, key)) throw new Error(`no member ${key} on the way to ${pointer}`);
    return { ...object, [key]: rename(object[key], depth + 1) };
  };
  return rename(message, 0);
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
