/**
 * @module conformance-table: how `npm run conformance:servers` reads the suite's checks: one row per check of a
 * scenario (the n-th check of one id and name told apart from the others), one column per mode, the count passed of
 * those counted, the checks a server passes alone but not behind wymcp, which fail the run, and those it passes only
 * behind wymcp.
 */

/** One check as the suite writes it into `checks.json`. */
export interface Check {
  id: string;
  name?: string;
  status: string;
}

/** How a server is run: alone, behind `wymcp proxy`, behind `gateFetch`. The first mode is the one compared against. */
export type Mode = "alone" | "proxy" | "gateFetch";

/** The n-th occurrence of a check's id and name in a scenario, so that repeated ids are told apart. */
export function keyed(checks: Check[]): Map<string, Check> {
  const seen = new Map<string, number>();
  const out = new Map<string, Check>();
  for (const check of checks) {
    const label = check.name ? `${check.id} ${check.name}` : check.id;
    const n = seen.get(label) ?? 0;
    seen.set(label, n + 1);
    out.set(n === 0 ? label : `${label} (${n + 1})`, check);
  }
  return out;
}

const MARK: Record<string, string> = { SUCCESS: "pass", FAILURE: "FAIL", WARNING: "warn", INFO: "info", SKIPPED: "skip" };
export const passed = (checks: Check[]) => checks.filter((check) => check.status === "SUCCESS").length;
/** Checks counted: passed, failed or warned (an info or a skip tells nothing of the server). */
export const counted = (checks: Check[]) => checks.filter((check) => check.status !== "INFO" && check.status !== "SKIPPED").length;

export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

/** One server's table: a row per check of every scenario, a column per mode, a count row per scenario. */
export function serverTable(
  modes: Mode[],
  results: Map<string, Map<Mode, Check[]>>,
): { table: string; summary: string[][]; lost: string[]; gained: Map<Mode, string[]> } {
  const rows: string[][] = [["scenario", "check", ...modes]];
  const summary: string[][] = [];
  const lost: string[] = [];
  const gained = new Map<Mode, string[]>(modes.slice(1).map((mode) => [mode, []]));
  for (const [scenario, byMode] of results) {
    const keyedByMode = new Map(modes.map((mode) => [mode, keyed(byMode.get(mode) ?? [])]));
    const labels = [...new Set(modes.flatMap((mode) => [...keyedByMode.get(mode)!.keys()]))];
    for (const label of labels) {
      const alone = keyedByMode.get("alone")!.get(label);
      rows.push([scenario, label, ...modes.map((mode) => MARK[keyedByMode.get(mode)!.get(label)?.status ?? ""] ?? "absent")]);
      for (const mode of modes.slice(1)) {
        const behind = keyedByMode.get(mode)!.get(label)?.status;
        if (alone?.status === "SUCCESS" && behind !== "SUCCESS") lost.push(`${scenario}: ${label} (${mode})`);
        if (alone?.status !== "SUCCESS" && behind === "SUCCESS") gained.get(mode)!.push(`${scenario}: ${label}`);
      }
    }
    const counts = modes.map((mode) => `${passed(byMode.get(mode) ?? [])}/${counted(byMode.get(mode) ?? [])}`);
    rows.push([scenario, "**passed / counted**", ...counts]);
    summary.push([scenario, ...counts]);
  }
  return { table: formatTable(rows), summary, lost, gained };
}
