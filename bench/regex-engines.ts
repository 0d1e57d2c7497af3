/**
 * @module regex-engines: the engines that could run a server's `pattern` at the edge, measured in one process on the
 * edge's pattern shapes (fuzz/adversarial/edge.ts): RegExp with `u` (V8's backtracking Irregexp, as the SDK's Ajv runs
 * a pattern) and with `v`, re2js (RE2 in JavaScript, what the edge uses), and, when they resolve, the `re2` native addon
 * and `re2-wasm`; V8's experimental linear engine (the `l` flag) in a child process, since it needs a flag at start.
 * Per engine: CPU time per KiB of the argument (the least of the rounds), the growth for 10× the argument, what it
 * cannot express, and what it adds. Writes docs/performance.md's `bench:regex-engines`.
 *
 *     npx tsx bench/regex-engines.ts [--from DIR]   # DIR: a folder whose node_modules holds re2 and re2-wasm
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { RE2JS } from "re2js";
import { writeBenchSection } from "../scripts/doc-sections.js";
import { PATTERN_SHAPES } from "../fuzz/adversarial/edge.js";
import { linearRegExp, toRe2 } from "../src/compile/linear-pattern.js";
import { table } from "./measure.js";

type Tester = (pattern: string) => { test(input: string): boolean };

interface Engine {
  name: string;
  linear: boolean;
  make: Tester | undefined;
  /** Why it is absent, when it is. */
  absent?: string;
  adds: string;
  workers: string;
}

const fromIndex = process.argv.indexOf("--from");
const from = fromIndex > 0 ? process.argv[fromIndex + 1] : undefined;
const optional = createRequire(join(from ?? process.cwd(), "package.json"));

function load<T>(name: string): T | undefined {
  try {
    return optional(name) as T;
  } catch {
    return undefined;
  }
}

const re2Native = load<new (p: string, f: string) => { test(s: string): boolean }>("re2");
const re2Wasm = load<{ RE2: new (p: string, f: string) => { test(s: string): boolean } }>("re2-wasm");

function packageBytes(name: string): number | undefined {
  try {
    return Number(
      execFileSync("du", ["-sb", dirname(optional.resolve(`${name}/package.json`))])
        .toString()
        .split("\t")[0],
    );
  } catch {
    return undefined;
  }
}

async function re2jsMinified(): Promise<{ bytes: number; gzip: number }> {
  const out = await build({
    stdin: { contents: 'export { RE2JS } from "re2js";', resolveDir: process.cwd() },
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
  });
  const text = out.outputFiles[0]!.contents;
  return { bytes: text.length, gzip: gzipSync(text).length };
}

const kib = (b: number | undefined) =>
  b === undefined ? "?" : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(1)} MiB` : `${(b / 1024).toFixed(0)} KiB`;

const linear = linearRegExp(RE2JS);
const minified = await re2jsMinified();
const nativeBinary = re2Native ? statSync(optional.resolve("re2/build/Release/re2.node")).size : undefined;
const engines: Engine[] = [
  {
    name: "RegExp, u (V8 Irregexp: the SDK's Ajv)",
    linear: false,
    make: (p) => new RegExp(p, "u"),
    adds: "nothing",
    workers: "yes",
  },
  { name: "RegExp, v", linear: false, make: (p) => new RegExp(p, "v"), adds: "nothing", workers: "yes" },
  {
    name: "re2js 2.10.0 (RE2 in JavaScript, translated)",
    linear: true,
    make: (p) => linear(p, "u"),
    adds: `${kib(minified.bytes)} minified, ${kib(minified.gzip)} gzip`,
    workers: "yes (plain JavaScript, no code generation)",
  },
  {
    name: "re2 (native addon, translated)",
    linear: true,
    make: re2Native ? (p) => new re2Native(toRe2(p), "u") : undefined,
    absent: "not installed (--from DIR)",
    adds: `${kib(nativeBinary)} binary per platform, ${kib(packageBytes("re2"))} installed (sources, built by node-gyp)`,
    workers: "no (a Node addon)",
  },
  {
    name: "re2-wasm (translated)",
    linear: true,
    make: re2Wasm ? (p) => new re2Wasm.RE2(toRe2(p), "u") : undefined,
    absent: "not installed (--from DIR)",
    adds: `${kib(packageBytes("re2-wasm"))} installed`,
    workers: "no (compiles its WebAssembly from bytes at run time)",
  },
];

/** CPU microseconds of `run`, the least of `samples` tries. */
function cpuMicros(run: () => void, samples: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < samples; i++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

const SAMPLES = 5;
/** Linear engines: 10 KiB → 100 KiB; backtracking ones 1 KiB → 10 KiB (at 100 KiB a quadratic shape takes seconds). */
const shapes = PATTERN_SHAPES.filter((s) => !s.key);
const rows: string[][] = [];
for (const engine of engines) {
  if (!engine.make) {
    rows.push([engine.name, "-", "-", "-", engine.absent ?? "absent"]);
    continue;
  }
  let worstPerKiB = 0;
  let worstGrowth = 0;
  let measured = 0;
  for (const shape of shapes) {
    if (!engine.linear && shape.growth === "exponential") continue;
    const n = engine.linear ? 10_240 : 1024;
    let re: ReturnType<Tester>;
    try {
      re = engine.make(shape.pattern);
    } catch {
      // Not this engine's syntax (the `v` flag refuses `/` unescaped in a class): the shape is not measured.
      continue;
    }
    const [small, large] = [shape.text(n), shape.text(n * 10)];
    const ten = () => {
      for (let i = 0; i < 10; i++) re.test(small);
    };
    ten();
    const atN = cpuMicros(ten, engine.linear ? SAMPLES : 2) / 10;
    const at10N = cpuMicros(() => re.test(large), engine.linear ? SAMPLES : 2);
    worstPerKiB = Math.max(worstPerKiB, (at10N / (n * 10)) * 1024);
    worstGrowth = Math.max(worstGrowth, at10N / Math.max(atN, 1));
    measured++;
  }
  rows.push([
    engine.name,
    `${measured} of ${shapes.length}${engine.linear ? "" : " (exponential ones not run)"}`,
    `${worstPerKiB.toFixed(1)} µs`,
    `${worstGrowth.toFixed(1)}×`,
    engine.linear ? "10 → 100 KiB" : "1 → 10 KiB",
  ]);
}

/** What each engine refuses of ECMAScript's `u` patterns (the RE2 ones after the edge's translation). */
const FEATURES: Array<[string, string]> = [
  ["lookahead", "^(?=.*\\d).+$"],
  ["lookbehind", "(?<=a)b"],
  ["backreference", "^(\\w)\\1$"],
  ["\\p{L}", "^\\p{L}+$"],
  ["repeat past 1000", "^a{1001}$"],
];
const cannot = engines
  .filter((e) => e.make)
  .map((e) => [
    e.name,
    FEATURES.filter(([, p]) => {
      try {
        e.make!(p).test("a");
        return false;
      } catch {
        return true;
      }
    })
      .map(([name]) => name)
      .join(", ") || "none",
    e.linear ? "linear" : "backtracking: quadratic or exponential on the shapes",
    e.adds,
    e.workers,
  ]);

// V8's linear engine needs --enable-experimental-regexp-engine when the process starts: no library can set it, and no
// edge runtime lets a server set it.
const v8 = (() => {
  try {
    return execFileSync(process.execPath, [
      "--enable-experimental-regexp-engine",
      "-e",
      `const t=(p)=>{try{new RegExp(p,"lu");return"yes"}catch{return"no"}};console.log(["^[^/]+$","^(?=a)","(a)\\\\1","^\\\\p{L}+$"].map(t).join(" "))`,
    ])
      .toString()
      .trim();
  } catch (error) {
    return `did not run: ${(error as Error).message.split("\n")[0]}`;
  }
})();

const text = [
  table(["engine", "shapes measured", "most CPU per KiB", "most growth for 10×", "n"], rows, [2, 3]),
  "",
  table(["engine", "cannot express", "time", "adds", "on Workers"], cannot),
  "",
  `V8's linear engine (\`l\` flag, with \`--enable-experimental-regexp-engine\` only): compiles plain / lookahead / backreference / \\p{L} with "lu": ${v8}`,
  `re2js's own build: ${kib(statSync(createRequire(import.meta.url).resolve("re2js")).size)} unminified.`,
].join("\n");
process.stdout.write(`${text}\n`);
writeBenchSection("regex-engines", `\`\`\`text\n${text}\n\`\`\``, `npx tsx bench/regex-engines.ts --from DIR`);
