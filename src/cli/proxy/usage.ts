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
  --allowed-host H    a host the client's Host may name (repeatable): host:port for that port, host for any port;
                      a request naming another (or an Origin of another host) gets 403, whatever its method.
                      Default on a loopback --listen: localhost, 127.0.0.1 and [::1], any port (DNS
                      rebinding protection); on any other address, no check
  --allowed-origin O  an origin a browser's Origin may name (repeatable), e.g. https://app.example; a request with
                      no Origin (clients that are not browsers) is allowed
  --allow-any-host    no Host or Origin check at all, not even the loopback default
  --supported-versions V  the modern versions the server serves, comma-separated (e.g. 2026-07-28): a modern request
                      naming another gets 400 -32022 (rule versions); unset, a version wymcp does not know is
                      reported and judged on framing alone
  --caller-header H   repeatable: a request header that tells callers apart (a key or tool selector of the
                      server's own), besides Authorization, Cookie and Mcp-Session-Id: the tools one caller's
                      list teaches judge only that caller's calls
${GATE_FLAGS_USAGE}

An upstream that is down or refuses gets 502, one that does not answer in time 504, each with a JSON-RPC error; an
answer that is not valid HTTP (a bad status, header or framing, an unasked-for 101) gets 502 too. The proxy keeps
serving. An https upstream's certificate is checked against the --upstream name, never the client's Host.
SIGTERM or SIGINT drains: no new connection, server streams (GET) end, the rest finish; exit 0.
It keeps no state but the tools each caller's list taught: run as many as needed behind a load balancer. Modern
requests may go to any instance; a legacy session must stay on one, so key legacy clients by their address (an
initialize has no Mcp-Session-Id yet).
`;
