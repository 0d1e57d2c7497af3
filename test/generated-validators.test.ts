import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as legacy from "../generated/legacy/validators.js";
import * as modern from "../generated/modern/validators.js";
import type { ValidationError, Validator } from "../generated/validator.js";
import { underFormats } from "./support/formats.js";
import { loadExamples, specDefinitions, type JsonObject } from "./support/spec.js";

const examples = loadExamples();
const defs = specDefinitions(modern.revision);
const modernExports = modern as unknown as Record<string, unknown>;

function validatorOf(definition: string): Validator | undefined {
  const candidate = modernExports[definition];
  return typeof candidate === "function" ? (candidate as Validator) : undefined;
}

function errorsOf(validate: Validator, data: unknown): ValidationError[] {
  return validate(data) ? [] : (validate.errors ?? []);
}

function show(errors: readonly ValidationError[]): string {
  return JSON.stringify(errors.map(({ keyword, instancePath, params }) => ({ keyword, instancePath, params })));
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const pointer = (segments: readonly string[]): string =>
  segments.map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

describe("the official 2026-07-28 examples", () => {
  test("every example of a definition with a generated validator passes it, and every JSON-RPC example passes JSONRPCMessage", async (t) => {
    assert.ok(examples.length > 0, "no official examples found");
    let byDefinition = 0;
    let framed = 0;
    for (const { definition, name, instance } of examples) {
      const validate = validatorOf(definition);
      if (validate) {
        byDefinition++;
        await t.test(`${name} passes ${definition}`, () => {
          assert.deepEqual(errorsOf(validate, instance), []);
        });
      }
      if (isObject(instance) && "jsonrpc" in instance) {
        framed++;
        await t.test(`${name} passes the JSONRPCMessage framing`, () => {
          assert.deepEqual(errorsOf(modern.JSONRPCMessage, instance), []);
        });
      }
    }
    t.diagnostic(`${examples.length} examples: ${byDefinition} checked against their own definition, ${framed} against JSONRPCMessage`);
    assert.ok(byDefinition > 0);
    assert.ok(framed > 0);
  });

  test("every request method's definition that has examples is exercised by them", () => {
    const exemplified = new Set(examples.map((example) => example.definition));
    const exercised = [...modern.methods.values()].filter(({ definition }) => exemplified.has(definition));
    assert.ok(exercised.length > 0);
    for (const { definition } of exercised) assert.ok(validatorOf(definition), `${definition} has no generated validator`);
  });
});

/** Follows `$ref`s into the revision's `$defs`. */
function resolveRef(schema: JsonObject): JsonObject {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string"; hops++) {
    assert.ok(hops < 32, `$ref loop at ${String(current.$ref)}`);
    const target = defs[current.$ref.replace("#/$defs/", "")];
    assert.ok(target, `unresolvable ${current.$ref}`);
    current = target;
  }
  return current;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The JSON types a schema admits, or undefined when it does not say. */
function admittedTypes(schema: JsonObject): Set<string> | undefined {
  const s = resolveRef(schema);
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type as string[]);
  if ("const" in s) return new Set([jsonType(s.const)]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map(jsonType));
  const members = s.anyOf ?? s.oneOf;
  if (!Array.isArray(members)) return undefined;
  const union = new Set<string>();
  for (const member of members as JsonObject[]) {
    const types = admittedTypes(member);
    if (!types) return undefined;
    types.forEach((type) => union.add(type));
  }
  return union;
}

const WRONG_VALUES: readonly unknown[] = [true, 1.5, "a string of the wrong type", [], {}];

/** A value of a JSON type the schema does not admit. */
function wrongTypeFor(schema: JsonObject): unknown {
  const types = admittedTypes(schema);
  assert.ok(types, `cannot tell which types ${JSON.stringify(schema)} admits`);
  const admits = (value: unknown) => types.has(jsonType(value)) || (jsonType(value) === "integer" && types.has("number"));
  const wrong = WRONG_VALUES.find((value) => !admits(value));
  assert.notEqual(wrong, undefined);
  return wrong;
}

interface RequiredSite {
  /** Property names from the message root to the object that requires `name`. */
  parent: string[];
  name: string;
  schema: JsonObject;
}

/**
 * Every property required at an object level of `value`: the definition's own `required`, then, through
 * `properties` (with `$ref`s resolved), that of each object the base message carries.
 */
function requiredSites(schema: JsonObject, value: JsonObject, parent: string[] = []): RequiredSite[] {
  const s = resolveRef(schema);
  const properties = (s.properties ?? {}) as Record<string, JsonObject>;
  const sites: RequiredSite[] = ((s.required ?? []) as string[]).map((name) => ({ parent, name, schema: properties[name] ?? {} }));
  for (const [name, property] of Object.entries(properties)) {
    const child = value[name];
    if (isObject(child)) sites.push(...requiredSites(property, child, [...parent, name]));
  }
  return sites;
}

function objectAt(root: unknown, path: readonly string[]): JsonObject {
  let node = root;
  for (const segment of path) node = (node as JsonObject)[segment];
  assert.ok(isObject(node));
  return node;
}

function exampleOf(definition: string): unknown {
  return examples.find((example) => example.definition === definition)?.instance;
}

describe("each modern request method rejects a message missing, or mistyping, a required property", () => {
  for (const [method, { definition, validate }] of modern.methods) {
    const base = exampleOf(definition);
    describe(`${method} (${definition})`, () => {
      test("has a valid base message that passes", () => {
        assert.ok(isObject(base), `no official example, hence no valid base, for ${definition}`);
        assert.deepEqual(errorsOf(validate, base), []);
      });
      if (!isObject(base)) return;
      const definitionSchema = defs[definition];
      assert.ok(definitionSchema);
      const sites = requiredSites(definitionSchema, base);
      test("requires id, jsonrpc, method and params, and the params' _meta", () => {
        const paths = sites.map(({ parent, name }) => pointer([...parent, name]));
        for (const path of ["/id", "/jsonrpc", "/method", "/params", "/params/_meta"]) assert.ok(paths.includes(path), path);
      });
      for (const { parent, name, schema } of sites) {
        const path = pointer([...parent, name]);
        test(`without ${path}: fails "required" at ${pointer(parent) || '""'}`, () => {
          const message = structuredClone(base);
          delete objectAt(message, parent)[name];
          const errors = errorsOf(validate, message);
          assert.ok(
            errors.some((e) => e.keyword === "required" && e.instancePath === pointer(parent) && e.params.missingProperty === name),
            show(errors),
          );
        });
        test(`with ${path} of the wrong type: fails at ${path}`, () => {
          const message = structuredClone(base);
          objectAt(message, parent)[name] = wrongTypeFor(schema);
          const errors = errorsOf(validate, message);
          assert.ok(errors.length > 0, "passed");
          assert.ok(
            errors.some((e) => e.instancePath === path),
            show(errors),
          );
        });
      }
    });
  }
});

describe("the legacy validators check framing only", () => {
  const cases: Array<[string, { validate: Validator; body: unknown; want: "pass" | { failsAt: string } }]> = [
    [
      "JSONRPCMessage passes a request with an unknown method",
      {
        validate: legacy.JSONRPCMessage,
        body: { jsonrpc: "2.0", id: 1, method: "no/such/method" },
        want: "pass",
      },
    ],
    [
      "JSONRPCRequest passes a request with an unknown method",
      {
        validate: legacy.JSONRPCRequest,
        body: { jsonrpc: "2.0", id: "a", method: "no/such/method", params: {} },
        want: "pass",
      },
    ],
    [
      "JSONRPCMessage passes a notification's method beside an id",
      {
        validate: legacy.JSONRPCMessage,
        body: { jsonrpc: "2.0", id: 2, method: "notifications/initialized" },
        want: "pass",
      },
    ],
    [
      "JSONRPCRequest passes a notification's method beside an id",
      {
        validate: legacy.JSONRPCRequest,
        body: { jsonrpc: "2.0", id: 2, method: "notifications/initialized" },
        want: "pass",
      },
    ],
    [
      "JSONRPCMessage passes a request's method without an id",
      {
        validate: legacy.JSONRPCMessage,
        body: { jsonrpc: "2.0", method: "tools/call", params: { name: "x" } },
        want: "pass",
      },
    ],
    [
      "JSONRPCNotification passes a request's method without an id",
      {
        validate: legacy.JSONRPCNotification,
        body: { jsonrpc: "2.0", method: "tools/call", params: { name: "x" } },
        want: "pass",
      },
    ],
    [
      "JSONRPCMessage rejects jsonrpc 1.0 at /jsonrpc",
      {
        validate: legacy.JSONRPCMessage,
        body: { jsonrpc: "1.0", id: 3, method: "tools/call" },
        want: { failsAt: "/jsonrpc" },
      },
    ],
    [
      "JSONRPCRequest rejects jsonrpc 1.0 at /jsonrpc",
      {
        validate: legacy.JSONRPCRequest,
        body: { jsonrpc: "1.0", id: 3, method: "tools/call" },
        want: { failsAt: "/jsonrpc" },
      },
    ],
    [
      "JSONRPCNotification rejects jsonrpc 1.0 at /jsonrpc",
      {
        validate: legacy.JSONRPCNotification,
        body: { jsonrpc: "1.0", method: "notifications/initialized" },
        want: { failsAt: "/jsonrpc" },
      },
    ],
  ];
  for (const [name, { validate, body, want }] of cases) {
    test(name, () => {
      const errors = errorsOf(validate, body);
      if (want === "pass") assert.deepEqual(errors, []);
      else
        assert.ok(
          errors.some((e) => e.instancePath === want.failsAt),
          show(errors),
        );
    });
  }
});

describe("the format regexes of schemas/formats.json, through the generated validators under formats: strict", () => {
  function withParams(definition: string, params: JsonObject): unknown {
    const message = structuredClone(exampleOf(definition)) as JsonObject;
    message.params = { ...(message.params as JsonObject), ...params };
    return message;
  }
  const sites: Record<string, { validate: Validator; at: string; message: (value: string) => unknown }> = {
    uri: {
      validate: modern.ReadResourceRequest,
      at: "/params/uri",
      message: (uri) => withParams("ReadResourceRequest", { uri }),
    },
    "uri-template": {
      validate: modern.CompleteRequest,
      at: "/params/ref/uri",
      message: (uri) => withParams("CompleteRequest", { ref: { type: "ref/resource", uri } }),
    },
    byte: {
      validate: modern.CallToolRequest,
      at: "/params/inputResponses/sample/content/data",
      message: (data) =>
        withParams("CallToolRequest", {
          inputResponses: { sample: { role: "assistant", model: "m", content: { type: "image", mimeType: "image/png", data } } },
        }),
    },
  };
  const cases: Array<[format: string, value: string, ok: boolean]> = [
    ["uri", "file:///a.txt", true],
    ["uri", "https://example.com/a%20b?q=1#frag", true],
    ["uri", "urn:isbn:0451450523", true],
    ["uri", "relative/path", false],
    ["uri", "", false],
    ["uri", "https://example.com/a b", false],
    ["uri-template", "file:///{path}", true],
    ["uri-template", "https://example.com/{+base}{/segments*}{?q,lang}", true],
    ["uri-template", "a{b", false],
    ["uri-template", "a}b", false],
    ["byte", "aGVsbG8=", true],
    ["byte", "aGVsbA==", true],
    ["byte", "aGVsbG8", false],
    ["byte", "aGVs bG8=", false],
  ];
  for (const [format, value, ok] of cases) {
    const site = sites[format]!;
    test(`${format} ${ok ? "accepts" : "rejects"} ${JSON.stringify(value)} at ${site.at}`, () => {
      const errors = underFormats("strict", () => errorsOf(site.validate, site.message(value)));
      if (ok) assert.deepEqual(errors, []);
      else {
        assert.ok(
          errors.some((e) => e.keyword === "format" && e.params.format === format && e.instancePath === site.at),
          show(errors),
        );
      }
    });
    if (!ok) {
      test(`${format} is an annotation by default: ${JSON.stringify(value)} at ${site.at} passes`, () => {
        assert.deepEqual(errorsOf(site.validate, site.message(value)), []);
      });
    }
  }
});
