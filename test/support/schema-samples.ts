/**
 * Argument objects for a JSON Schema, valid and mutated, from a seeded generator: a value built to satisfy the
 * schema (types, required members, enums, bounds, formats, local $refs, one branch of a union), then mutations
 * that break it in the ways clients do (a member missing or of the wrong type, an extra member, a bound crossed,
 * a format almost right, junk from fast-check's JSON and string arbitraries) at a random depth.
 */
import fc from "fast-check";
import { prng } from "../../fuzz/cases.js";

type Schema = Record<string, unknown> | boolean;

/** Deterministic numbers in [0, 1) from a 32-bit seed: the fuzzer's mulberry32. */
export const random = prng;

/** Strings near the edge of common formats: valid ones, and ones that are almost so. */
const FORMAT_SAMPLES: Record<string, string[]> = {
  "date-time": [
    "2024-02-29T12:30:00Z",
    "2024-02-30T12:30:00Z",
    "2023-02-29T00:00:00+01:00",
    "2024-01-01 10:00:00Z",
    "2024-01-01T23:59:60Z",
    "2024-01-01T10:00:00",
    "2024-13-01T00:00:00Z",
  ],
  date: ["2024-02-29", "2023-02-29", "2024-1-01", "2024-04-31"],
  time: ["12:30:00Z", "12:30:00", "25:00:00Z", "23:59:60Z"],
  uri: [
    "https://example.com/a?b=c#d",
    "mailto:someone@example.com",
    "example.com",
    "//example.com",
    "http://[::1]:80/",
    "urn:isbn:0451450523",
    "http://exa mple.com",
  ],
  "uri-reference": ["/a/b", "../x", "https://e.com", "a b"],
  email: ["someone@example.com", "no-at-sign", "a@b", "a..b@example.com"],
  hostname: ["example.com", "-bad.com", `${"a".repeat(64)}.com`],
  ipv4: ["192.168.0.1", "256.0.0.1", "1.2.3"],
  ipv6: ["::1", "2001:db8::1", "12345::"],
  uuid: ["123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000"],
  regex: ["^a+$", "(unclosed", "[a-z]"],
};

const junkValues = fc.sample(fc.jsonValue({ maxDepth: 2 }), { seed: 7, numRuns: 400 });
const junkStrings = fc.sample(fc.string({ unit: "binary", maxLength: 12 }), { seed: 11, numRuns: 400 });
const allFormatSamples = Object.values(FORMAT_SAMPLES).flat();

export class Sampler {
  constructor(
    private readonly root: Schema,
    private readonly next: () => number,
  ) {}

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }

  private chance(p: number): boolean {
    return this.next() < p;
  }

  private resolve(schema: Schema): Schema {
    let current = schema;
    for (
      let hops = 0;
      hops < 8 && typeof current === "object" && typeof current.$ref === "string" && current.$ref.startsWith("#");
      hops++
    ) {
      let node: unknown = this.root;
      for (const part of current.$ref.slice(1).split("/").filter(Boolean))
        node = (node as Record<string, unknown>)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
      if (node === undefined) break;
      current = { ...(node as Record<string, unknown>), ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== "$ref")) };
    }
    return current;
  }

  /** A value meant to satisfy `schema` (not always: pattern and not are not solved). */
  valid(schema: Schema = this.root, depth = 0): unknown {
    const s = this.resolve(schema);
    if (s === true || s === false) return this.pick(junkValues);
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum) && s.enum.length > 0) return this.pick(s.enum);
    for (const union of ["anyOf", "oneOf"])
      if (Array.isArray(s[union]) && (s[union] as Schema[]).length > 0) {
        const { [union]: branches, ...rest } = s;
        const branch = this.resolve(this.pick(branches as Schema[]));
        return this.valid(typeof branch === "object" ? { ...rest, ...branch } : branch, depth + 1);
      }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      return this.valid(
        Object.assign({}, rest, ...(allOf as Schema[]).map((b) => (typeof b === "object" ? this.resolve(b) : {}))),
        depth + 1,
      );
    }
    const types = Array.isArray(s.type)
      ? (s.type as string[])
      : typeof s.type === "string"
        ? [s.type]
        : s.properties
          ? ["object"]
          : s.items
            ? ["array"]
            : ["string", "number", "object"];
    const type = this.pick(types);
    switch (type) {
      case "object":
        return this.object(s, depth);
      case "array": {
        const min = typeof s.minItems === "number" ? s.minItems : 0;
        const max = Math.min(typeof s.maxItems === "number" ? s.maxItems : min + 3, min + 3);
        const n = min + Math.floor(this.next() * (max - min + 1));
        const items = (s.items ?? {}) as Schema;
        const out = Array.from({ length: n }, () => (depth > 6 ? null : this.valid(items, depth + 1)));
        return s.uniqueItems ? [...new Map(out.map((v) => [JSON.stringify(v), v])).values()] : out;
      }
      case "string": {
        if (typeof s.format === "string" && FORMAT_SAMPLES[s.format]) return FORMAT_SAMPLES[s.format]![0];
        const min = typeof s.minLength === "number" ? s.minLength : 0;
        const max = typeof s.maxLength === "number" ? s.maxLength : min + 8;
        const length = min + Math.floor(this.next() * (Math.min(max, min + 8) - min + 1));
        return "abcdefghijklmnopqrstuvwxyz".repeat(4).slice(0, length);
      }
      case "integer":
      case "number": {
        const lo = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : -50;
        const hi = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - 1 : lo + 100;
        const value = lo + Math.floor(this.next() * Math.max(1, Math.min(hi - lo, 1000)));
        return type === "number" && this.chance(0.2) ? value + 0.5 : value;
      }
      case "boolean":
        return this.chance(0.5);
      case "null":
        return null;
      default:
        return this.pick(junkValues);
    }
  }

  private object(s: Record<string, unknown>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    for (const [name, sub] of Object.entries(properties)) {
      if (required.has(name) || (depth < 5 && this.chance(0.5))) out[name] = this.valid(sub, depth + 1);
    }
    for (const name of required) if (!(name in out)) out[name] = this.pick(junkValues);
    if (typeof s.additionalProperties === "object" && this.chance(0.3))
      out[`extra${Math.floor(this.next() * 10)}`] = this.valid(s.additionalProperties as Schema, depth + 1);
    return out;
  }

  /** `value` broken somewhere: at the root or at a random member, in one of several ways. */
  mutate(value: unknown): unknown {
    const copy = structuredClone(value);
    const paths = pathsOf(copy);
    const path = this.pick(paths);
    const how = Math.floor(this.next() * 9);
    const replacement = (): unknown => {
      switch (how) {
        case 0:
          return this.pick(junkValues);
        case 1:
          return this.pick(junkStrings);
        case 2:
          return this.pick(allFormatSamples);
        case 3:
          return this.pick([0, -1, 1e308, -0.5, 2 ** 31, 2 ** 53 + 2, 1.5]);
        case 4:
          return this.pick([null, true, "", [], {}]);
        case 5:
          return "😀".repeat(1 + Math.floor(this.next() * 4));
        default:
          return undefined;
      }
    };
    if (path.length === 0) return how === 6 ? this.pick(junkValues) : (replacement() ?? "SENTINEL-ROOT");
    // biome-ignore lint/suspicious/noExplicitAny: a walk down a cloned JSON value of any shape
    const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], copy);
    const key = path[path.length - 1]!;
    if (how === 7 && parent && typeof parent === "object" && !Array.isArray(parent)) delete parent[key];
    else if (how === 8 && parent && typeof parent === "object" && !Array.isArray(parent))
      parent[`SENTINEL\u001b[2J${Math.floor(this.next() * 100)}`] = "SENTINEL-VALUE";
    else parent[key] = replacement() ?? "SENTINEL-VALUE";
    return copy;
  }
}

function pathsOf(value: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...at, i], out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}
