/**
 * @module sse: the messages of a Server-Sent Events stream as a capture holds it, one per event: its `data:` lines
 * joined by newlines (the stream's own rule), events with no data (priming events, comments) skipped.
 */

/**
 * The data of each event, in order. A stream cut off mid-event still yields what it had, as a client would not:
 * a capture is read to judge what was sent.
 * @example eventData("event: message\ndata: {\"a\":1}\n\n") // ['{"a":1}']
 */
export function eventData(stream: string): string[] {
  const out: string[] = [];
  let data: string[] | undefined;
  const dispatch = () => {
    const text = data?.join("\n");
    if (text) out.push(text);
    data = undefined;
  };
  for (const raw of stream.split(/\r\n|\r|\n/)) {
    if (raw === "") {
      dispatch();
      continue;
    }
    if (raw.startsWith(":")) continue;
    const colon = raw.indexOf(":");
    const field = colon < 0 ? raw : raw.slice(0, colon);
    if (field !== "data") continue;
    let value = colon < 0 ? "" : raw.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    (data ??= []).push(value);
  }
  dispatch();
  return out;
}
