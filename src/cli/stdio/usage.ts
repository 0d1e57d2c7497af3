/** @module usage: the help text of `wymcp stdio`. */
import { GATE_FLAGS_USAGE } from "../gate-options.js";

/** `wymcp stdio --help`. */
export const STDIO_USAGE = `Usage: wymcp stdio [options] -- command [args...]

The gates' checks on a stdio MCP server's input, in place of the server where a client launches it: where the client's
configuration runs "npx @modelcontextprotocol/server-filesystem /data", it runs
  npx wymcp stdio -- npx @modelcontextprotocol/server-filesystem /data

Each line the client writes is judged (the era from the message itself); a passing line goes to the server unchanged.
A bad request is answered with wymcp's JSON-RPC error and its id, and never reaches the server; a bad notification or
response is dropped and logged, never answered; a line that is not JSON (or is longer than --max-body-bytes, which is
never held whole) is answered -32700 (-32600) with id null, at most once a second. The server's output goes back
unchanged, its stderr to stderr; wymcp exits with the server's exit code. While the client does not read what wymcp
answers, wymcp stops reading it. SIGTERM, SIGINT and SIGHUP are passed on to the server, which is killed if it has not
exited within --stop-timeout; if wymcp itself is killed, the server's input ends, and a server exits on that.

  --stop-timeout MS   after passing on a stop signal, longest wait for the server to exit (default 5000); then SIGKILL
${GATE_FLAGS_USAGE}
`;
