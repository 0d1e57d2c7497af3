/**
 * @module command: `wymcp compile`, its arguments and output. Loaded only by that command: it imports Ajv,
 * ajv-formats and json-schema-to-typescript, which `wymcp check` and the runtime entries never load; the official
 * client (for --from and --from-stdio) is loaded later still, by those flags alone (from-server.ts).
 */
import type { ServerSource } from "../../compile/from-server.js";
import { compileTo, fromServer } from "../../compile/write-out.js";
import { lint, lintSummary, renderFindings } from "../../compile/lint.js";
import { type Client, CLIENTS } from "../../compile/lint-rules.js";
import { type InputFile, readInput } from "../../compile/read-inputs.js";
import { writeLock } from "../../compile/lock.js";
import { HELP, headerLines, LIST, readArgs, SWITCH, UsageError, VALUE } from "../args.js";
import { commandArgs } from "../command-start.js";
import { COMPILE_USAGE } from "./usage.js";

interface CompileOptions {
  inputs: string[];
  out?: string;
  check: boolean;
  lint: boolean;
  clients: Client[];
  json: boolean;
  from?: ServerSource;
  save?: string;
  lock?: string;
}

/** `wymcp compile`'s flags. */
export const COMPILE_FLAGS = {
  out: VALUE,
  check: SWITCH,
  lint: SWITCH,
  client: VALUE,
  json: SWITCH,
  from: VALUE,
  "from-stdio": SWITCH,
  header: LIST,
  save: VALUE,
  lock: VALUE,
  ...HELP,
} as const;

function parseCompileArgs(argv: string[]): CompileOptions | "help" {
  // Everything after the first "--" is the stdio server's command line, never wymcp's options.
  const { values, positionals, tail: command } = readArgs(COMPILE_FLAGS, argv);
  if (values.help) return "help";
  const from = serverSourceOf(values.from, values["from-stdio"] === true, values.header ?? [], command);
  if (command && !values["from-stdio"]) throw new UsageError('"--" is only for --from-stdio\'s command');
  if (values.header !== undefined && values.from === undefined) throw new UsageError("--header goes with --from");
  if (values.save !== undefined && !from) throw new UsageError("--save goes with --from or --from-stdio");
  if (from && positionals.length > 0) throw new UsageError("name input files or a server (--from, --from-stdio), not both");
  if (!from && positionals.length === 0) throw new UsageError("name at least one input, or a server with --from or --from-stdio");
  if (!values.out && !values.lint && values.lock === undefined)
    throw new UsageError("--out <dir> is required (or --lint, to report only, or --lock FILE)");
  if (values.check && !values.out && values.lock === undefined) throw new UsageError("--check goes with --out <dir> or --lock FILE");
  if (values.client !== undefined && !values.lint) throw new UsageError("--client goes with --lint");
  if (values.json && !values.lint) throw new UsageError("--json goes with --lint");
  return {
    inputs: positionals,
    ...(values.out === undefined ? {} : { out: values.out }),
    check: values.check === true,
    lint: values.lint === true,
    clients: parseClients(values.client ?? "all"),
    json: values.json === true,
    ...(from === undefined ? {} : { from }),
    ...(values.save === undefined ? {} : { save: values.save }),
    ...(values.lock === undefined ? {} : { lock: values.lock }),
  };
}

/** The server --from (its URL, with the --header lines) or --from-stdio (the command after "--") names, if either. */
function serverSourceOf(
  from: string | undefined,
  fromStdio: boolean,
  headers: string[],
  command: string[] | undefined,
): ServerSource | undefined {
  if (from !== undefined && fromStdio) throw new UsageError("give --from or --from-stdio, not both");
  if (from !== undefined) {
    let url: URL;
    try {
      url = new URL(from);
    } catch {
      throw new UsageError(`--from takes the server's URL, not ${JSON.stringify(from)}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new UsageError(`--from takes an http: or https: URL, not ${url.protocol}`);
    return { url: url.href, headers: headerLines(headers, false) };
  }
  if (fromStdio) {
    if (!command || command.length === 0)
      throw new UsageError('--from-stdio takes the server\'s command after "--": wymcp compile --from-stdio --lint -- node server.js');
    return { command: command[0]!, args: command.slice(1) };
  }
  return undefined;
}

function parseClients(list: string): Client[] {
  const picked = new Set<Client>();
  for (const word of list.split(",").map((w) => w.trim())) {
    if (word === "all") for (const c of CLIENTS) picked.add(c);
    else if (word === "none" || word === "") continue;
    else if ((CLIENTS as readonly string[]).includes(word)) picked.add(word as Client);
    else throw new UsageError(`--client takes ${CLIENTS.join(", ")}, all or none, not ${JSON.stringify(word)}`);
  }
  return CLIENTS.filter((c) => picked.has(c));
}

/** A line of the command's output: to stderr when it reports a failure, to stdout otherwise. */
const say = (line: string, failed?: boolean) => void (failed ? process.stderr : process.stdout).write(line);

export async function runCompile(argv: string[]): Promise<number> {
  const read = commandArgs("compile", argv, parseCompileArgs, COMPILE_USAGE);
  if ("exit" in read) return read.exit;
  const options = read.args;
  let inputs: InputFile[];
  try {
    inputs = options.from
      ? [await fromServer(options.from, options.save, say)]
      : await Promise.all(options.inputs.map((i) => readInput(i)));
  } catch (error) {
    process.stderr.write(`wymcp compile: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let code = 0;
  if (options.lint) {
    const report = lint(inputs, options.clients);
    if (options.json) {
      for (const finding of report.findings) process.stdout.write(`${JSON.stringify(finding)}\n`);
      process.stderr.write(lintSummary(report));
    } else process.stdout.write(renderFindings(report) + lintSummary(report));
    if (report.findings.length > 0) code = 1;
  }
  if (options.lock !== undefined) {
    try {
      const written = writeLock(inputs, options.lock, options.check, say);
      code = Math.max(code, written);
    } catch (error) {
      process.stderr.write(`wymcp compile: ${error instanceof Error ? error.message : String(error)}\n`);
      return 2;
    }
  }
  if (options.out === undefined) return code;
  return Math.max(code, await compileTo({ inputs, out: options.out, check: options.check, say }));
}
