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
unchanged, its stderr to stderr; signals are passed on; wymcp exits with the server's exit code.

${GATE_FLAGS_USAGE}
`;
