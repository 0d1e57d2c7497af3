/** @module usage: the help text of `wymcp proxy`. */
import { GATE_FLAGS_USAGE } from "../gate-options.js";

/** `wymcp proxy --help`. */
export const PROXY_USAGE = `Usage: wymcp proxy --upstream URL [options]

A validating reverse proxy in front of an MCP server written in anything (Python, Go, C#, Java, ...). Every POST is
judged as the gates judge it and a bad one is answered, never forwarded; what passes goes upstream byte for byte with
the client's headers. GET (the server's stream) and DELETE go straight through; answers stream back as they come.

  --upstream URL      the server, e.g. http://127.0.0.1:8000/mcp; clients use the same path on the proxy
  --listen HOST:PORT  where to listen (default 127.0.0.1:3000; [::1]:3000 for IPv6; port 0 picks a free one)
  --timeout MS        longest wait for the upstream to start answering (default 60000); then 504
  --connect-timeout MS
                      longest wait for a new connection to the upstream, TLS included (default 10000); then 502
  --max-answer-bytes N
                      largest answer relayed, event streams aside (default 67108864); a larger one is answered
                      502, or cut off when its headers have gone out already; Infinity turns it off
  --drain-timeout MS  on SIGTERM, longest wait for requests in flight to finish (default 10000)
  --rewrite-host      send the upstream's host in Host (default: the client's, as it sent it)
  --trust-proxy       a proxy in front of this one is trusted: its X-Forwarded-*, Forwarded and X-Real-IP headers
                      are kept, X-Forwarded-For extended (default: a client's are dropped, the proxy sets its own)
${GATE_FLAGS_USAGE}

An upstream that is down or refuses gets 502, one that does not answer in time 504, each with a JSON-RPC error; an
answer that is not valid HTTP (a bad status, header or framing, an unasked-for 101) gets 502 too. The proxy keeps
serving. An https upstream's certificate is checked against the --upstream name, never the client's Host.
SIGTERM or SIGINT drains: no new connection, server streams (GET) end, the rest finish; exit 0.
It keeps no state: run as many as needed behind a load balancer (legacy sessions need affinity on Mcp-Session-Id).
`;
