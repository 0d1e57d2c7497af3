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

/**
 * Sets the switch as `formats` says and returns what it was, for `restoreFormats` in a `finally`: the flag is restored
 * however the call ends, so no other call sees it. (A pair of calls, not a callback, so that no closure is made.)
 */
export function switchFormats(formats: Formats | undefined): boolean {
  const before = formatMode.strict;
  formatMode.strict = formats === "strict";
  return before;
}

export function restoreFormats(before: boolean): void {
  formatMode.strict = before;
}
