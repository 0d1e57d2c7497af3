/**
 * @module Start-up: whole fresh `node` processes, the variants alternated round by round (A, B, C, …, A, B, …).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { spread, type Spread } from "./measure.js";

export interface StartupVariant {
  key: string;
  label: string;
  /** What `readyMs` covers in this variant. */
  covers: string;
  /** Diagnostics explain a figure; they are not part of the comparison. */
  diagnostic?: boolean;
}

export const STARTUP_VARIANTS: StartupVariant[] = [
  { key: "empty", label: "empty module (baseline)", covers: "import of an empty .mjs" },
  {
    key: "runtime",
    label: "wymcp runtime, both eras",
    covers: "import of dist/index.js, the core entry `wymcp` (its module and the shared chunk)",
  },
  {
    key: "ajv-boot",
    label: "Ajv compiled at boot, both eras",
    covers: "import ajv + read the engine documents (JSON) + compile every entry of both eras",
  },
  { key: "zod-core", label: "SDK v2 Zod (@modelcontextprotocol/core)", covers: "import of @modelcontextprotocol/core" },
  { key: "zod-sdk-v1", label: "SDK v1 Zod (@modelcontextprotocol/sdk/types.js)", covers: "import of @modelcontextprotocol/sdk/types.js" },
  { key: "runtime-fetch", label: "  wymcp + wymcp/fetch", covers: "import of dist/index.js and dist/fetch.js", diagnostic: true },
  { key: "runtime-node", label: "  wymcp + wymcp/node", covers: "import of dist/index.js and dist/node-http.js", diagnostic: true },
  { key: "generated-legacy", label: "  generated/legacy only", covers: "import of generated/legacy/validators.js", diagnostic: true },
  { key: "generated-modern", label: "  generated/modern only", covers: "import of generated/modern/validators.js", diagnostic: true },
];

export interface StartupFigures {
  label: string;
  covers: string;
  diagnostic: boolean;
  /** In-process: from just before the variant's first import to ready to validate. */
  readyMs: Spread;
  /** The first validation of the modern tools/call after ready (lazy compilation by V8 lands here). */
  firstCallMs: Spread;
  /** From the process's time origin to the end of the child script. */
  processMs: Spread;
  /** CPU time (user + system, all threads) from the process's start to the end of the child script. */
  cpuMs: Spread;
  /** Spawn to exit, seen by the parent. */
  wallMs: Spread;
  /** Compile-at-boot only: import of ajv, reading the documents, compiling. */
  phases?: Record<string, Spread>;
}

export interface StartupResult {
  rounds: number;
  order: string[];
  variants: Record<string, StartupFigures>;
}

interface ChildLine {
  variant: string;
  readyMs: number;
  firstCallMs: number;
  processMs: number;
  cpuMs: number;
  [phase: string]: number | string;
}

const child = fileURLToPath(new URL("./startup-child.mjs", import.meta.url));

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // Plain node: no loader or option inherited from the tsx parent.
  for (const name of Object.keys(env)) if (name === "NODE_OPTIONS" || name.startsWith("TSX")) delete env[name];
  return env;
}

function runChild(variant: string, messageFile: string, engineFile: string, env: NodeJS.ProcessEnv): ChildLine & { wallMs: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [child, variant, messageFile, engineFile], { env, encoding: "utf8" });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`start-up child ${variant} exited with ${result.status ?? result.signal}: ${result.stderr.trim()}`);
  }
  const line = result.stdout.trim().split("\n").pop() ?? "";
  return { ...(JSON.parse(line) as ChildLine), wallMs };
}

export function runStartup(options: {
  rounds: number;
  messageFile: string;
  engineFile: string;
  /** The discarded round first; off only for the smoke test, whose figures mean nothing. */
  warmup?: boolean;
  log?: (s: string) => void;
}): StartupResult {
  const env = childEnv();
  const keys = STARTUP_VARIANTS.map((v) => v.key);
  // One discarded round first: it pays for the disk cache, not for any variant.
  if (options.warmup ?? true) for (const key of keys) runChild(key, options.messageFile, options.engineFile, env);
  const samples = new Map<string, (ChildLine & { wallMs: number })[]>(keys.map((k) => [k, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const key of keys) samples.get(key)!.push(runChild(key, options.messageFile, options.engineFile, env));
    options.log?.(`start-up round ${round + 1}/${options.rounds}`);
  }
  const variants: Record<string, StartupFigures> = {};
  for (const v of STARTUP_VARIANTS) {
    const lines = samples.get(v.key)!;
    const pick = (name: string) => spread(lines.map((l) => Number(l[name])));
    const phaseNames = Object.keys(lines[0]!).filter(
      (k) => k.endsWith("Ms") && !["readyMs", "firstCallMs", "processMs", "cpuMs", "wallMs"].includes(k),
    );
    variants[v.key] = {
      label: v.label,
      covers: v.covers,
      diagnostic: v.diagnostic ?? false,
      readyMs: pick("readyMs"),
      firstCallMs: pick("firstCallMs"),
      processMs: pick("processMs"),
      cpuMs: pick("cpuMs"),
      wallMs: pick("wallMs"),
      ...(phaseNames.length ? { phases: Object.fromEntries(phaseNames.map((p) => [p, pick(p)])) } : {}),
    };
  }
  return { rounds: options.rounds, order: keys, variants };
}
