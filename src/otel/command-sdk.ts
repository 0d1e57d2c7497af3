/**
 * @module otel/sdk: what `--otel` loads, and nothing else does: the OpenTelemetry Node SDK (`@opentelemetry/sdk-node`,
 * an optional peer dependency), which reads the standard `OTEL_*` environment variables itself (exporters, protocol,
 * endpoints, headers, resource, sampler, export interval, `OTEL_SDK_DISABLED`), and `mcpTelemetry()` over what it
 * registers. wymcp changes two defaults only, each overridden by setting the variable: no `process` resource detector
 * (its `process.command_args` would export the command line, the stdio server's arguments included), and diagnostics
 * from warnings up, written to the face's log on stderr.
 */
import { type DiagLogFunction, type DiagLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { escapeText } from "../core/log-safe.js";
import { mcpTelemetry } from "./telemetry.js";
import type { Face, GateLog } from "../log/gate-log.js";
import { type CommandTelemetry, OtelSetupError, SHUTDOWN_TIMEOUT_MS } from "./command-telemetry.js";

/** The resource detectors when `OTEL_NODE_RESOURCE_DETECTORS` is unset: the SDK's default set but `process`. */
export const DEFAULT_RESOURCE_DETECTORS = "env,host,os,serviceinstance";

/** Longest diagnostic logged, in characters once escaped (an exporter's error may quote a collector's answer). */
const DIAGNOSTIC_UNITS = 512;

const LEVELS: Record<string, DiagLogLevel> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

/** Starts the SDK as the environment says (the SDK reads `process.env` itself) and returns the face's telemetry over it. */
export function startSdk(face: Face, log: GateLog): CommandTelemetry {
  const env = process.env;
  if (face === "stdio") {
    // Standard output carries the MCP messages: an exporter that prints there would corrupt them.
    for (const name of ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"]) {
      if (listOf(env[name]).includes("console"))
        throw new OtelSetupError(`--otel: ${name}=console would print on standard output, which carries the MCP messages; use otlp`);
    }
  }
  const level = (env.OTEL_LOG_LEVEL ?? "").trim().toUpperCase() || "WARN";
  if (LEVELS[level] === undefined) throw new OtelSetupError(`--otel: OTEL_LOG_LEVEL must be one of ${Object.keys(LEVELS).join(", ")}`);
  diag.setLogger(diagnostics(log), { logLevel: LEVELS[level], suppressOverrideMessage: true });
  // The SDK reads these two in its constructor; it gets wymcp's defaults, and the environment is restored at once.
  const sdk = withEnv(
    env,
    { OTEL_NODE_RESOURCE_DETECTORS: env.OTEL_NODE_RESOURCE_DETECTORS || DEFAULT_RESOURCE_DETECTORS, OTEL_LOG_LEVEL: undefined },
    () => new NodeSDK(),
  );
  sdk.start();
  const disabled = /^\s*true\s*$/i.test(env.OTEL_SDK_DISABLED ?? "");
  log.line(
    "otel",
    { disabled },
    disabled
      ? "--otel: OTEL_SDK_DISABLED is true, nothing is recorded"
      : "--otel: OpenTelemetry on, exporting as the OTEL_* environment variables say",
  );
  return {
    telemetry: mcpTelemetry(),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), SHUTDOWN_TIMEOUT_MS);
      });
      const done = sdk.shutdown().then(
        () => "done" as const,
        (error: unknown) => diag.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`),
      );
      const outcome = await Promise.race([done, late]);
      clearTimeout(timer);
      if (outcome !== "late") return "done";
      diag.warn(`the last export did not finish within ${SHUTDOWN_TIMEOUT_MS} ms; what it held is lost`);
      return "late";
    },
  };
}

/** A comma-separated list of the environment, as the SDK reads one: trimmed, lower-cased, empty items dropped. */
function listOf(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}

/** Runs `fn` with `overrides` set in `env` (`undefined` removes a variable), and puts the environment back. */
function withEnv<T>(env: NodeJS.ProcessEnv, overrides: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.entries(overrides).map(([name]) => [name, env[name]] as const);
  const set = (name: string, value: string | undefined) => {
    if (value === undefined) delete env[name];
    else env[name] = value;
  };
  for (const [name, value] of Object.entries(overrides)) set(name, value);
  try {
    return fn();
  } finally {
    for (const [name, value] of saved) set(name, value);
  }
}

/** The SDK's diagnostics as lines of the face's log, bounded and log-safe. */
function diagnostics(log: GateLog): DiagLogger {
  const at =
    (level: string): DiagLogFunction =>
    (message, ...args) => {
      const text = escapeText(
        [message, ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg)))].join(" "),
        DIAGNOSTIC_UNITS,
      );
      log.line("otel-diagnostic", { level, message: text }, `opentelemetry ${level}: ${text}`);
    };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug"), verbose: at("verbose") };
}
