/**
 * @module sse: the messages of a Server-Sent Events stream as a capture holds it, one per event: its `data:` lines
 * joined by newlines (the stream's own rule), events with no data (priming events, comments) skipped.
 */

/**
 * The data of each event, in order, each found when asked for: a stream of millions of tiny events is never held as
 * millions of strings. A stream cut off mid-event still yields what it had, as a client would not: a capture is read
 * to judge what was sent.
 * @example [...eachEventData("event: message\ndata: {\"a\":1}\n\n")] // ['{"a":1}']
 */
export function* eachEventData(stream: string): Generator<string, void, undefined> {
  let data: string[] | undefined;
  const lineEnd = /\r\n|\r|\n/g;
  let start = 0;
  while (start <= stream.length) {
    lineEnd.lastIndex = start;
    const end = lineEnd.exec(stream);
    const raw = stream.slice(start, end ? end.index : stream.length);
    start = end ? lineEnd.lastIndex : stream.length + 1;
    if (raw === "") {
      const text = data?.join("\n");
      data = undefined;
      if (text) yield text;
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
  const text = data?.join("\n");
  if (text) yield text;
}

/**
 * The data of each event, all at once (a short stream's reading).
 * @example eventData("event: message\ndata: {\"a\":1}\n\n") // ['{"a":1}']
 */
export function eventData(stream: string): string[] {
  return [...eachEventData(stream)];
}
