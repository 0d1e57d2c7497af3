/** @module usage: the help text of `wymcp inspect`. */
import { DEFAULT_MAX_ROWS } from "../../inspect/ring.js";

export const INSPECT_USAGE = `Usage: wymcp inspect [options] file ...

Judges captured MCP messages exactly as wymcp check does (the same inputs: .jsonl, .json, .har; the same options:
--era, --direction, --header, --method, --format, --max-body-bytes, --max-depth, --rule, --report), then serves
a page that shows them: one row per message (time judged, direction, era and revision, method with the tool or
prompt name, verdict, JSON-RPC code), filters by verdict, method and text, each response beside the request it
answers, and a message opened with each failing location marked. A box on the page judges a pasted or dropped
message, JSONL or HAR file in the browser, by the same validators, under an era or revision of your choice; the
page exports what it shows as JSONL or HAR (every value redacted but the envelope, names and the protocol's words,
unless asked for), which wymcp check reads back. The page loads nothing from any other origin and runs offline.

Options
  --listen HOST:PORT  where to listen (default 127.0.0.1:0, a free port; the page's address is printed)
  --ui-token TOKEN    a secret of at least 16 characters that the page's rows require (open the address with
                      ?token=; the page sends it, no cookie); needed on an address that is not loopback
                      (127.0.0.0/8, ::1, localhost), refused without it; WYMCP_UI_TOKEN gives it out of the
                      process list
  --max-rows N        rows kept, the oldest dropped first (default ${DEFAULT_MAX_ROWS}; at most 32 Mi characters of
                      message text are kept whatever the count)
  -h, --help          this text

Runs until interrupted (Ctrl-C), then exits 0. An input that cannot be read is reported and the others are
served; when no message at all could be read, it says so and exits 2 without serving. Exit status 2: bad arguments,
nothing read, no page built, or an address it cannot listen on.
`;
