/**
 * @module legacy-checks: the `legacyChecks` option every face takes, and its check when a face is built. Apart from
 * legacy-revision.ts so that checking an option loads no validator.
 */

/**
 * What the legacy lane checks: `"params"` the framing and a known method's params against the revision's definition
 * (`-32602` when they fail), `"report"` the same but a params failure is passed on and reported, `"framing"` the
 * JSON-RPC framing alone.
 */
export type LegacyChecks = "params" | "report" | "framing";

export const LEGACY_CHECKS: readonly LegacyChecks[] = ["params", "report", "framing"];

/** The mode a face uses when given none (docs/validation.md says why this one). */
export const DEFAULT_LEGACY_CHECKS: LegacyChecks = "params";

export class LegacyChecksError extends TypeError {
  override name = "LegacyChecksError";
}

/** Checks a `legacyChecks` option once, when a face is built: a wrong one is the host's bug, not the client's. */
export function checkLegacyChecks(value: unknown): LegacyChecks {
  if (value === undefined) return DEFAULT_LEGACY_CHECKS;
  if (!(LEGACY_CHECKS as readonly unknown[]).includes(value)) {
    throw new LegacyChecksError(
      `wymcp: legacyChecks must be one of ${LEGACY_CHECKS.map((m) => `"${m}"`).join(", ")}, not ${describe(value)}`,
    );
  }
  return value as LegacyChecks;
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value;
}
