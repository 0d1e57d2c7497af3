/**
 * The `wymcp check` runs whose output is pinned in test/golden/cli/: test/cli.test.ts runs each with these very
 * arguments, and scripts/render-cli-docs.ts shows each in docs/cli.md, so a command in the docs is the command tested.
 * It lives in scripts/ because the docs script reads it (scripts/ never import test/).
 */
export interface CliExample {
  /** The golden file under test/golden/, holding stdout. */
  golden: string;
  /** Arguments after `wymcp check`, run in test/fixtures/cli/. */
  args: string[];
  /** A fixture piped to standard input. */
  stdin?: string;
  /** The exit code. */
  status: number;
  /** What the example shows, one sentence for the docs. */
  caption: string;
  /** Show the input file (`cat`) before the run. */
  showInput?: string;
}

export const CLI_EXAMPLES: readonly CliExample[] = [
  {
    golden: "cli/bad-tools-call.txt",
    args: ["bad-tools-call.json"],
    showInput: "bad-tools-call.json",
    status: 1,
    caption: "One message in a `.json` file (pretty-printed is fine): a modern `tools/call` whose `name` is an array.",
  },
  {
    golden: "cli/stdin-format-json.txt",
    args: ["--format", "json", "-"],
    stdin: "bad-tools-call.json",
    status: 1,
    caption: "The same message piped in: `-` names standard input, and `--format json` reads it whole instead of line by line.",
  },
  {
    golden: "cli/mixed.txt",
    args: ["mixed.jsonl"],
    status: 1,
    caption: "A capture, one message per line (line 6 is blank; lines 5 and 11 were cut off by the logger), both eras mixed.",
  },
  {
    golden: "cli/exchange.txt",
    args: ["--method", "tools/call", "--header", "MCP-Protocol-Version: 2025-11-25", "exchange.jsonl"],
    status: 1,
    caption:
      "A legacy exchange, both directions: the server's messages are judged as `wymcp/outbound` judges them; a result takes the method and era of the request with its id in the capture (line 5 answers line 1), and `--method` names what the others answer, whose requests the capture lacks.",
  },
  {
    golden: "cli/session-har.txt",
    args: ["session.har"],
    status: 1,
    caption:
      "A HAR file (recorded by `npm run record:captures`: the official SDK's client and server in both eras, two legacy sessions, then a broken client): each POST's request body with its headers, then its response, JSON or an event stream split into its messages. Each response is judged against the request it answers; the table counts the verdicts per method.",
  },
  {
    golden: "cli/session-jsonl-quiet.txt",
    args: ["--quiet", "session.jsonl"],
    status: 1,
    caption:
      "The same session as a proxy log holds it, one message per line and no headers (so a legacy message is judged by the revision its session's initialize negotiated, or by the default); `--quiet` prints the rejections and the summary.",
  },
  {
    golden: "cli/legacy-elicitation.txt",
    args: ["legacy-elicitation.jsonl"],
    status: 0,
    caption:
      "A stdio session of 2025-11-25 (recorded by `scripts/record-legacy-stdio.py`: the official Python SDK's client and server), with no headers at all: after the handshake every legacy message is judged by the revision the server's answer to `initialize` negotiated (line 2). The server asks the user through `elicitation/create` and the client's model through `sampling/createMessage`; the client's answers read as such.",
  },
];

/** `args` as a shell would need them typed. */
export function shellWords(args: readonly string[]): string {
  return args.map((a) => (/^[\w./=-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
}
