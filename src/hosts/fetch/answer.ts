/**
 * @module answer: the chain's answer on a Fetch `Response`, the one place a Fetch face wraps an answer: the body is read
 * through one pulled stream, each chunk through the run's rewriters (core/chain.ts), then past its taps after it is
 * handed on. The run closes at the last byte, or when the body is cancelled.
 */
import type { AnswerHead, ChainRun, OwnAnswer } from "../../core/chain.js";

/** A `Response`'s head as the stages read it. */
class FetchHead implements AnswerHead {
  constructor(
    private readonly response: Response,
    readonly own: OwnAnswer | undefined,
  ) {}

  get status(): number {
    return this.response.status;
  }

  header(name: string): string | undefined {
    return this.response.headers.get(name) ?? undefined;
  }
}

/**
 * `response` as the client is to receive it: through the run's answer, or itself when no stage reads or rewrites it.
 * `own`: wymcp answers the exchange itself (a refusal).
 */
export function chainResponse(response: Response, run: ChainRun | undefined, own?: OwnAnswer): Response {
  if (!run) return response;
  const pipe = run.answer(new FetchHead(response, own));
  if (!pipe || !response.body) {
    pipe?.ended();
    run.close();
    return response;
  }
  const source = response.body.getReader();
  let headers = response.headers;
  if (pipe.resizes) {
    headers = new Headers(headers);
    headers.delete("content-length");
  }
  // One pulled stream rather than a TransformStream: Node builds a TransformStream of three streams, each costly.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let read: Awaited<ReturnType<typeof source.read>>;
        try {
          read = await source.read();
        } catch (error) {
          pipe.broke();
          run.close();
          throw error;
        }
        if (read.done) {
          const rest = pipe.rewrites ? pipe.finish() : [];
          for (const piece of rest) controller.enqueue(piece);
          for (const piece of rest) pipe.sent(piece);
          pipe.ended();
          run.close();
          return controller.close();
        }
        const out = pipe.rewrites ? pipe.rewrite(read.value) : [read.value];
        for (const piece of out) controller.enqueue(piece);
        for (const piece of out) pipe.sent(piece);
        if (out.length > 0) return;
      }
    },
    // A client gone mid-stream cancels the body: the source is cancelled, and the exchange is over.
    cancel(reason) {
      pipe.broke();
      run.close();
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * An answer of wymcp's own, its text whole (a refusal): the run's taps read it as it is made (no stage rewrites
 * wymcp's own answer), and the run closes; its body is the text itself, never a stream of it.
 */
export function ownResponse(run: ChainRun, status: number, text: string, own: OwnAnswer): Response {
  const response = new Response(text, { status, headers: { "Content-Type": "application/json" } });
  const pipe = run.answer(new FetchHead(response, own));
  pipe?.sent(text);
  pipe?.ended();
  run.close();
  return response;
}
