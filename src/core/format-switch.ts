/**
 * @module format-switch: the one flag the generated validators read before each format check (one compilation serves
 * both modes), set for the synchronous duration of a single validation call. A module that judges through the
 * generated code imports this one beside it, so that both see the same flag in every bundle.
 */
import { formatMode } from "../../generated/format-mode.js";
import type { Formats } from "./formats.js";

/** Whether a call under `formats` must set the switch first (false on the default path, which then costs one read). */
export function switchesFormats(formats: Formats | undefined): boolean {
  return (formats === "strict") !== formatMode.strict;
}

/** `run()` with formats asserted as `formats` says; the flag is restored however `run` ends, so no other call sees it. */
export function underFormats<T>(formats: Formats | undefined, run: () => T): T {
  const before = formatMode.strict;
  formatMode.strict = formats === "strict";
  try {
    return run();
  } finally {
    formatMode.strict = before;
  }
}
