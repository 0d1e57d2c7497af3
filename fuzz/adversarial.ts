/**
 * @module `npm run fuzz -- --adversarial`: the generator's inbound cases (fuzz/adversarial) over HTTP, to the example
 * server gated (wymcp in front of the SDK) and ungated (`WYMCP_GATE=off`, the SDK alone), one case at a time, the
 * ungated server first. Fails on a gated 5xx or a hang: no answer, or a gated answer slower than
 * max(1 s, 50 × the ungated one). Every location at a small n; at the body limit, one location per lane and shape
 * and one input per regex; every inbound long-name case (one long member name, fuzz/adversarial/long-names) in every
 * style and size. `--small N`, `--no-limit` and `--no-long-names` change that; `--json FILE` writes the cases.
 */
import { writeFileSync } from "node:fs";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { generate, largestN, type Target } from "./adversarial/cases.js";
import { DEFAULT_MAX_BODY_BYTES, headersFor } from "./adversarial/judge-path.js";
import { send, type Outcome } from "./send.js";
import { longNameTargets, NAME_SIZES, NAME_STYLES, ROUTE_ITEMS, type NameSize, type NameStyle } from "./adversarial/long-names.js";

export interface AdversarialCase {
  index: number;
  target: Target;
  kind: string;
  n: number;
  /** Whether n is the largest the body limit allows. */
  atLimit: boolean;
  /** The long-name family: the name's style and size (fuzz/adversarial/long-names.ts); the message is built by `message`. */
  name?: { via: "member" | "route"; style: NameStyle; size: NameSize; label: string };
  message: () => unknown;
}

export interface CaseResult {
  index: number;
  lane: string;
  label: string;
  kind: string;
  n: number;
  bytes: number;
  /** For a long-name case: `member`/`route`, style and size of the name. */
  name?: string;
  gated: { status: number | "none" | "hung"; ms: number };
  ungated: { status: number | "none" | "hung"; ms: number };
  /** "ok", "5xx" (gated) or "hang" (gated: no answer, or slower than the threshold). */
  verdict: "ok" | "5xx" | "hang";
}

/** A gated answer slower than this, where the ungated one took `ungatedMs`, is a hang. */
export function hangThresholdMs(ungatedMs: number): number {
  return Math.max(1000, 50 * ungatedMs);
}

/** The two servers the cases go to. One function, so that the gated one can move onto another front (gateNode). */
export async function startServers(): Promise<Record<"gated" | "ungated", LaunchedExample>> {
  const [gated, ungated] = await Promise.all([launchExample({ env: { WYMCP_GATE: "on" } }), launchExample({ env: { WYMCP_GATE: "off" } })]);
  return { gated, ungated };
}

/**
 * Every inbound location at `small` items (a regex at `small` characters of run); some at the body limit; and with
 * `longNames`, every inbound long-name case in every style and size.
 */
export function adversarialCases({
  small = 1024,
  limit = true,
  longNames = true,
}: {
  small?: number;
  limit?: boolean;
  longNames?: boolean;
} = {}): AdversarialCase[] {
  const all = generate().targets;
  const targets = all.filter((t) => t.direction === "inbound");
  const cases: Omit<AdversarialCase, "index">[] = [];
  const located = (target: Target, kind: string, n: number, atLimit: boolean) => ({
    target,
    kind,
    n,
    atLimit,
    message: () => target.message(kind, n),
  });
  for (const target of targets) {
    for (const kind of target.kinds) {
      const max = largestN(target, kind, DEFAULT_MAX_BODY_BYTES);
      cases.push(located(target, kind, Math.min(small * (target.shape === "regex" ? 64 : 1), max), false));
    }
  }
  if (limit) {
    // Two locations per lane and shape at the limit: those with the most item kinds (unions'), their heaviest kind.
    const shapes = new Map<string, Target[]>();
    for (const t of targets) {
      if (t.shape === "regex" || !t.rejects(t.kinds[0]!)) continue;
      const key = `${t.lane} ${t.shape}`;
      shapes.set(key, [...(shapes.get(key) ?? []), t]);
    }
    for (const list of shapes.values()) {
      for (const target of [...list].sort((a, b) => b.kinds.length - a.kinds.length).slice(0, 2)) {
        const kind = target.kinds.includes("empty-object") ? "empty-object" : target.kinds[0]!;
        cases.push(located(target, kind, largestN(target, kind, DEFAULT_MAX_BODY_BYTES), true));
      }
    }
    for (const target of targets.filter((t) => t.shape === "regex")) {
      const kind = target.kinds[target.kinds.length - 1]!;
      cases.push(located(target, kind, largestN(target, kind, DEFAULT_MAX_BODY_BYTES), true));
    }
  }
  if (longNames) {
    for (const t of longNameTargets(all).filter((t) => t.direction === "inbound")) {
      for (const style of NAME_STYLES) {
        for (const size of NAME_SIZES) {
          cases.push({
            target: t.base,
            kind: t.kind,
            n: t.via === "route" ? ROUTE_ITEMS : 1,
            // `atLimit` is about n; how long the name is, `size` says.
            atLimit: false,
            name: { via: t.via, style, size, label: t.label },
            message: () => t.message(style, size, DEFAULT_MAX_BODY_BYTES),
          });
        }
      }
    }
  }
  return cases.map((c, index) => ({ ...c, index }));
}

/** Longest wait for either server: the SDK alone takes over a minute on some bodies at the limit. */
const UNGATED_TIMEOUT_MS = 60_000;

const statusOf = (o: Outcome): number | "none" | "hung" => (o.hung ? "hung" : (o.status ?? "none"));

export interface AdversarialReport {
  results: CaseResult[];
  seconds: number;
  restarts: number;
}

export async function runAdversarialFuzz(
  cases: AdversarialCase[],
  log: (line: string) => void = () => undefined,
): Promise<AdversarialReport> {
  const started = performance.now();
  let servers = await startServers();
  let restarts = 0;
  const results: CaseResult[] = [];
  try {
    for (const c of cases) {
      const message = c.message();
      const body = new TextEncoder().encode(JSON.stringify(message));
      const request = {
        index: c.index,
        kind: c.kind,
        base: c.target.label,
        headers: headersFor(c.target, message),
        body,
        framing: "content-length" as const,
      };
      const ungated = await send(servers.ungated.url, request, UNGATED_TIMEOUT_MS);
      const threshold = hangThresholdMs(ungated.ms);
      // Waiting past the threshold would only measure how long the hang lasts.
      const gated = await send(servers.gated.url, request, Math.min(threshold + 1000, UNGATED_TIMEOUT_MS));
      const gatedStatus = statusOf(gated);
      const verdict: CaseResult["verdict"] =
        gatedStatus === "hung" || gated.ms > threshold ? "hang" : typeof gatedStatus === "number" && gatedStatus >= 500 ? "5xx" : "ok";
      results.push({
        index: c.index,
        lane: c.target.lane,
        label: c.name?.label ?? c.target.label,
        ...(c.name && { name: `${c.name.via} ${c.name.style} ${c.name.size}` }),
        kind: c.kind,
        n: c.n,
        bytes: body.length,
        gated: { status: gatedStatus, ms: gated.ms },
        ungated: { status: statusOf(ungated), ms: ungated.ms },
        verdict,
      });
      if (verdict !== "ok")
        log(
          `#${c.index} ${c.target.lane} ${c.name ? `${c.name.label} (name ${c.name.via} ${c.name.style} ${c.name.size})` : c.target.label} ${c.kind} ×${c.n}: ${verdict} (gated ${gatedStatus} in ${gated.ms.toFixed(0)} ms, ungated ${statusOf(ungated)} in ${ungated.ms.toFixed(0)} ms)`,
        );
      // A hung server is still busy with the case; the next cases get fresh ones.
      if (gatedStatus === "hung" || statusOf(ungated) === "hung") {
        await Promise.all([servers.gated.stop(), servers.ungated.stop()]);
        servers = await startServers();
        restarts++;
      }
      if (results.length % 25 === 0) log(`${results.length}/${cases.length}`);
    }
  } finally {
    await Promise.all([servers.gated.stop(), servers.ungated.stop()]);
  }
  return { results, seconds: (performance.now() - started) / 1000, restarts };
}

export function adversarialSummary(report: AdversarialReport): string {
  const { results } = report;
  const count = (side: "gated" | "ungated") => {
    const by: Record<string, number> = {};
    for (const r of results) by[String(r[side].status)] = (by[String(r[side].status)] ?? 0) + 1;
    return Object.entries(by)
      .sort()
      .map(([s, n]) => `${s}×${n}`)
      .join(" ");
  };
  const max = (side: "gated" | "ungated") => Math.max(0, ...results.map((r) => r[side].ms));
  const p50 = (side: "gated" | "ungated") => {
    const sorted = results.map((r) => r[side].ms).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const worst = (side: "gated" | "ungated") =>
    results.reduce<CaseResult | undefined>((w, r) => (!w || r[side].ms > w[side].ms ? r : w), undefined);
  const lines = [
    `cases: ${results.length}, each sent to both servers; restarts after a hang: ${report.restarts}`,
    `gated   statuses: ${count("gated")}; p50 ${p50("gated").toFixed(0)} ms, max ${max("gated").toFixed(0)} ms (${describe(worst("gated"))})`,
    `ungated statuses: ${count("ungated")}; p50 ${p50("ungated").toFixed(0)} ms, max ${max("ungated").toFixed(0)} ms (${describe(worst("ungated"))})`,
    `gated 5xx: ${results.filter((r) => r.verdict === "5xx").length}; hangs (gated > max(1 s, 50 × ungated)): ${results.filter((r) => r.verdict === "hang").length}`,
    "",
    "case  lane            location                                    items             n      body  gated          ungated        verdict",
  ];
  for (const r of results) {
    lines.push(
      [
        String(r.index).padStart(4),
        r.lane.padEnd(14),
        (r.name ? `${r.label} [${r.name}]` : r.label).slice(0, 42).padEnd(42),
        r.kind.slice(0, 16).padEnd(16),
        String(r.n).padStart(7),
        `${(r.bytes / 1024).toFixed(0)} KiB`.padStart(9),
        `${r.gated.status} ${r.gated.ms.toFixed(0)} ms`.padEnd(14),
        `${r.ungated.status} ${r.ungated.ms.toFixed(0)} ms`.padEnd(14),
        r.verdict,
      ].join("  "),
    );
  }
  return lines.join("\n");
}

function describe(r: CaseResult | undefined): string {
  return r ? `#${r.index} ${r.label} ${r.kind} ×${r.n}` : "none";
}

export async function mainAdversarial(argv: string[]): Promise<number> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const cases = adversarialCases({
    small: Number(arg("small") ?? 1024),
    limit: !argv.includes("--no-limit"),
    longNames: !argv.includes("--no-long-names"),
  });
  const log = (line: string) => process.stderr.write(`fuzz adversarial: ${line}\n`);
  log(`${cases.length} cases to the gated and the ungated server`);
  const report = await runAdversarialFuzz(cases, log);
  console.log(
    `wymcp adversarial HTTP fuzz: ${cases.length} cases, gated (wymcp + SDK) vs ungated (SDK alone), ${report.seconds.toFixed(0)} s\n`,
  );
  console.log(adversarialSummary(report));
  const out = arg("json");
  if (out) writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  const failed = report.results.some((r) => r.verdict !== "ok");
  console.log(failed ? "\nFAIL: the gated server gave a 5xx or hung (see above)" : "\nok");
  return failed ? 1 : 0;
}
