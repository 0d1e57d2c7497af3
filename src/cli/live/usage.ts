/** @module usage: the live flags' lines of `wymcp proxy --help` and `wymcp stdio --help`. */
import { DEFAULT_MAX_ROWS } from "../../inspect/ring.js";

export const LIVE_USAGE = `  --ui HOST:PORT      serve the live page there (as wymcp inspect's, port 0 picks a free one; its address is
                      logged): every message as it passes, one row each (time, direction, era and revision, method
                      with the tool or prompt name, verdict as wymcp check judges it, JSON-RPC code, latency),
                      wymcp's own answers and refusals marked, filters, request beside response, failing locations
                      marked; JSONL and HAR export, redacted by default
  --ui-token TOKEN    a secret of at least 16 characters the page's rows require (open the address with ?token=;
                      the page sends it, no cookie); needed on an address that is not loopback, refused without it;
                      WYMCP_UI_TOKEN gives it out of the process list
  --ui-max-rows N     rows the page keeps, the oldest dropped first (default ${DEFAULT_MAX_ROWS}, at most 32 Mi characters)
  --record FILE       write each message as it passes to FILE (made 0600) as JSONL, as the page's export (wymcp check
                      reads it): every value redacted but the envelope, names and the protocol's words, wymcp's own
                      answers whole and marked; a file that falls behind the traffic loses lines (counted), never
                      slows it; a write error is logged once and traffic goes on
  --record-unredacted with --record: keep every value`;
