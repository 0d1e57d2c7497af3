/**
 * @module format-switch: the one flag the generated validators read before each format check (one compilation serves
 * both modes). Every call that runs the generated validators (`validateMcpRequest`, `validateMcpResponse`, and the
 * tests that call a validator directly) first sets the flag to its own policy, so no call ever judges by another's;
 * a flag left set after a call is read by nobody before the next call sets it. Setting it per call costs one read on
 * the default path and nothing more under `"strict"`, where a restore in a `finally` around a second entry cost more
 * (docs/performance.md#the-format-flag-set-per-call). A module that judges through the generated code imports this one beside
 * it, so that both see the same flag in every bundle.
 */
import { formatMode } from "../../generated/format-mode.js";
import type { Formats } from "./formats.js";

/** Sets the flag to `formats`'s policy: asserted under `"strict"`, an annotation otherwise; returns what it was. */
export function switchFormats(formats: Formats | undefined): boolean {
  const before = formatMode.strict;
  const strict = formats === "strict";
  // Written only when it changes: the default path, call after call, only reads it.
  if (strict !== before) formatMode.strict = strict;
  return before;
}
