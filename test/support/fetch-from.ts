/**
 * A `fetch` for the official client whose connections leave from a given loopback address (on Linux every address of
 * 127.0.0.0/8 is the machine's own), so that to a load balancer each address is another client. Over `node:http`, the
 * answer's body streamed as it arrives.
 */
import http from "node:http";
import { Readable } from "node:stream";

/** Statuses whose answer has no body, which a `Response` must be built without. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export interface FetchFrom {
  fetch: typeof fetch;
  /** Closes the connections kept alive. */
  close: () => void;
}

/** `fetch` from `localAddress`, e.g. `127.0.0.2`, on keep-alive connections of its own. */
export function fetchFrom(localAddress: string): FetchFrom {
  const agent = new http.Agent({ keepAlive: true, localAddress });
  const fetchFromAddress = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = http.request(
        request.url,
        { method: request.method, headers: Object.fromEntries(request.headers), agent, signal: request.signal },
        (incoming) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
          }
          const status = incoming.statusCode ?? 502;
          const empty = NO_BODY.has(status) || request.method === "HEAD";
          if (empty) incoming.resume();
          const stream = empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, statusText: incoming.statusMessage ?? "", headers }));
        },
      );
      outgoing.once("error", reject);
      outgoing.end(body);
    });
  };
  return { fetch: fetchFromAddress as typeof fetch, close: () => agent.destroy() };
}
