/**
 * @module handler-error: what the gates do with an error of the handler behind them (or of an `era` callback): it is
 * always observable. The `onError(error, request)` option sees it; without one, `console.error` logs it once.
 */
import { optionalFunction } from "../../options/options.js";

/** The gates' `onError` option: called once per error of the handler (or of an option's callback), before the `500`. */
export type OnError<R> = (error: unknown, request: R) => void;

/** The option, checked when the gate is built. */
export function onErrorOption<R>(value: unknown): OnError<R> | undefined {
  return optionalFunction<OnError<R>>("onError", value);
}

/**
 * Tells `onError` (a throw from it is ignored: the answer must still go out), or logs to `console.error` when the
 * gate has no `onError` and no host error handler (`next`) that will see the error instead.
 */
export function reportHandlerError<R>(onError: OnError<R> | undefined, error: unknown, request: R, hostSeesIt: boolean): void {
  if (onError) {
    try {
      onError(error, request);
    } catch {
      // The hook's own failure must not stop the 500.
    }
  } else if (!hostSeesIt) {
    console.error(
      "wymcp: the handler behind the gate failed; answered 500 (give the gate an onError option to handle this yourself):",
      error,
    );
  }
}
