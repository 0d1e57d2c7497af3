/** @module usage: the help texts of `wymcp` and of `wymcp check`. */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "../../options/options.js";

const CHECK_SYNOPSIS = "Usage: wymcp check [options] [file ...]";

/** What `wymcp check` does and takes, after its synopsis. */
const CHECK_BODY = `Checks captured MCP messages the way wymcp judges them (a client's as the gates do, a server's as
wymcp/outbound does), and prints where each one fails, what each was judged against, and a count per method.

Input
  file            a .json file holds one message; a .har file is a browser's or the Inspector's network export
                  (every POST to an MCP endpoint: its body, headers and response, event streams split); a .jsonl,
                  .ndjson or any other name holds one message per line. "-" or no file with piped input reads
                  standard input, one message per line. A line of the JSON log that wymcp proxy or wymcp stdio
                  write is the gate's own verdict (the log holds no bodies): shown and counted as the
                  gate judged it, never judged again, with its time and, where logged, the client's address.
  --format F      auto (by extension, the default), json (each input is one message), jsonl (one per line), har
  --max-body-bytes N
                  largest message (or line) judged, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, the gates' maxBodyBytes,
                  wymcp proxy's and wymcp stdio's --max-body-bytes); a longer one is refused as the gates refuse it
                  (413) and the run goes on
  --max-depth N   deepest nesting of arrays and objects judged (default ${DEFAULT_MAX_DEPTH}, the gates' maxDepth;
                  Infinity turns the bound off); a deeper message is refused as the gates refuse it

Each input is one capture: a response is judged against the method of the request with its id earlier in it
(per Mcp-Session-Id where the capture has headers), in that request's era; a request against its own method.
A legacy message without an MCP-Protocol-Version header is judged by the revision its session negotiated: the
server's answer to the session's initialize (the request's own protocolVersion until the capture shows the answer),
per Mcp-Session-Id in a HAR file, the whole input otherwise (each initialize starts a new session). A client's answer
to a server's request (sampling, elicitation, roots, ping) is printed as "client answer to <method>".

Judging
  --direction D   in, out or auto (default). in: as the gates judge what a client sends (the same stage:
                  size, UTF-8 and JSON, nesting, validateMcpRequest). out: as wymcp/outbound judges what a
                  server sends (validateMcpResponse).
                  auto, per message: a result or an error response is judged out (a server's, or a legacy
                  client's answer to sampling, roots or elicitation, which the outbound checks cover too); a
                  request or notification is judged out when a HAR file says the server sent it, or when its
                  method is one no client sends (sampling/createMessage, notifications/message, ...); else in.
  --era E         legacy, modern or auto (default). auto: each message's era signals (classifyEra) with the
                  headers of its HTTP exchange (a HAR file) or the --header lines; a response takes its request's era;
                  a server's other messages the era of the request whose exchange carried them, or of the headers
                  alone (a server's body carries no era signal), else legacy
  --header H      "Name: value", a request header of the exchange, as the gates read it: MCP-Protocol-Version
                  and Mcp-Session-Id for --era auto, Content-Type for the media type (not application/json:
                  415); e.g. "MCP-Protocol-Version: 2026-07-28"; may be repeated; a HAR entry's own headers win
  --method M      the method a response answers when the capture has no request with its id (a lone response).
                  Outbound, a result is judged against that method's result (CallToolResult, ...); without a
                  method only its JSON-RPC framing is, and the output says so. Inbound, it labels responses
  --rule NAME=STATE
                  one rule's state, enforce, report or off, as wymcp proxy and wymcp stdio take it (repeatable):
                  limits (size, JSON, nesting, media type), framing, params (a known method's params; a legacy
                  message's by the revision it names: the MCP-Protocol-Version header, an initialize's own, its
                  session's, else 2025-03-26), formats (off by default: a schema's uri, uri-template or byte refuses
                  no string, as in the official SDKs; enforce asserts each, in both directions), headers (a modern
                  request's MCP headers, when the capture has them), versions, outbound (the server's messages)
  --report        every enforced rule reports instead: a message is counted as reported, not rejected, with the
                  rule it fails; the table "by rule" counts what each would refuse (run a day's capture so before
                  enforcing a rule)
  Outbound, a legacy message is judged by the revision of its request, of the MCP-Protocol-Version header, of its
  session, else 2025-03-26; the output names the revision.

Output
  --json          one JSON object per message (the gates' answer for a refusal, validateMcpResponse's
                  for a message judged out); summary on stderr
  -q, --quiet     print only rejected messages and the summary (no table per method)
  -h, --help      this text
  Colour only on a terminal; NO_COLOR turns it off, FORCE_COLOR on.

An outbound message with violations is printed and counted as rejected; --json gives its outcome as
validateMcpResponse does ("violation", with its violations). After the table per method, a table "by rule" counts
the messages each rule refused and reported; with --json, a last object {"summary": ...} carries the counts, each
rule's by its state.

Exit codes: 0 every message passed, was reported or bypassed, 1 some message was rejected, 2 usage error, an input
that cannot be read, or no message read at all.
`;

/** `wymcp check --help`. */
export const CHECK_USAGE = `${CHECK_SYNOPSIS}\n\n${CHECK_BODY}`;

/** `wymcp --help`: every command, then the options of `check`, the one most runs use. */
export const USAGE = `${CHECK_SYNOPSIS}
   or: wymcp compile <input>... --out <dir> [--check]
   or: wymcp compile <input>... --lint
   or: wymcp proxy --upstream URL [options]
   or: wymcp stdio [options] -- command [args...]
   or: wymcp inspect [options] file ...

Commands
  check     judges captured MCP messages (a proxy log, a HAR export, a bug report); its options follow
  compile   precompiles a server's own JSON Schemas (tool input and output schemas) into a module for the SDK
            (no Ajv, no eval at run time), and lints them for what MCP clients refuse; --from URL and
            --from-stdio ask a running server for its tools. wymcp compile --help for its options and examples
  proxy     a validating reverse proxy in front of an MCP server over HTTP, in any language: a bad POST is answered,
            never forwarded. wymcp proxy --help for its options
  stdio     the same checks on a stdio server's input, in its place in a client's configuration.
            wymcp stdio --help for its options
  inspect   judges captures as check does and serves a page that shows them (on loopback, offline): filters,
            pairs, failing locations marked, paste or drop to judge in the browser. wymcp inspect --help

${CHECK_BODY}`;
