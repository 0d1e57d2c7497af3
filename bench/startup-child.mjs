/**
 * @module One fresh process of the start-up benchmark: `node bench/startup-child.mjs <variant> <message.json> [engine.json]`.
 * Times its variant's load (a dynamic import, plus reading and compiling for the compile-at-boot variant), then one
 * first validation of the message, and prints one JSON line.
 */
import { readFileSync } from "node:fs";

const [variant, messageFile, engineFile] = process.argv.slice(2);

/** Each variant: load, returning the check run once afterwards, plus any phases worth reporting. */
const variants = {
  async empty() {
    await import("./startup-empty.mjs");
    return { check: () => true };
  },
  async runtime() {
    const { validateMcpRequest } = await import("../dist/index.js");
    return { check: (body) => validateMcpRequest(body, "modern").outcome === "pass" };
  },
  "runtime-fetch": async () => {
    const [{ validateMcpRequest }, { wymcpFetch }] = await Promise.all([import("../dist/index.js"), import("../dist/fetch.js")]);
    wymcpFetch();
    return { check: (body) => validateMcpRequest(body, "modern").outcome === "pass" };
  },
  "runtime-node": async () => {
    const [{ validateMcpRequest }, { wymcpNode }] = await Promise.all([import("../dist/index.js"), import("../dist/node-http.js")]);
    wymcpNode();
    return { check: (body) => validateMcpRequest(body, "modern").outcome === "pass" };
  },
  "generated-legacy": async () => {
    const legacy = await import("../generated/legacy/validators.js");
    return { check: (body) => legacy.JSONRPCRequest(body) };
  },
  "generated-modern": async () => {
    const modern = await import("../generated/modern/validators.js");
    return { check: (body) => modern.JSONRPCRequest(body) && modern.methods.get(body.method).validate(body) };
  },
  "ajv-boot": async () => {
    const phases = {};
    let t = performance.now();
    const { Ajv } = await import("ajv");
    const { reviveOptions } = await import("./ajv-options.mjs");
    phases.importAjvMs = performance.now() - t;
    t = performance.now();
    const engine = JSON.parse(readFileSync(engineFile, "utf8"));
    phases.readMs = performance.now() - t;
    t = performance.now();
    const compiled = {};
    for (const { era, id, document, entries } of engine.eras) {
      const ajv = new Ajv(reviveOptions(engine.options));
      ajv.addSchema(document);
      compiled[era] = Object.fromEntries(entries.map((name) => [name, ajv.getSchema(`${id}#/$defs/${name}`)]));
    }
    phases.compileMs = performance.now() - t;
    const { modern } = compiled;
    return { phases, check: (body) => modern.JSONRPCRequest(body) && modern.CallToolRequest(body) };
  },
  "zod-core": async () => {
    const { JSONRPCMessageSchema, CallToolRequestSchema } = await import("@modelcontextprotocol/core");
    return { check: (body) => JSONRPCMessageSchema.safeParse(body).success && CallToolRequestSchema.safeParse(body).success };
  },
  "zod-sdk-v1": async () => {
    const { JSONRPCMessageSchema, CallToolRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    return { check: (body) => JSONRPCMessageSchema.safeParse(body).success && CallToolRequestSchema.safeParse(body).success };
  },
};

const load = variants[variant];
if (!load) {
  console.error(`unknown start-up variant ${variant}; known: ${Object.keys(variants).join(", ")}`);
  process.exit(2);
}
const body = JSON.parse(readFileSync(messageFile, "utf8"));
const start = performance.now();
const { check, phases } = await load();
const readyMs = performance.now() - start;
const t = performance.now();
const ok = check(body);
const firstCallMs = performance.now() - t;
if (ok !== true) {
  console.error(`start-up variant ${variant}: the first validation did not pass`);
  process.exit(1);
}
// performance.now() counts from the process's time origin, so this is the whole life of the process so far; so is
// process.cpuUsage(), the CPU time it took (user + system, every thread), which waiting for a shared core leaves out.
const cpu = process.cpuUsage();
console.log(
  JSON.stringify({ variant, readyMs, firstCallMs, processMs: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000, ...phases }),
);
