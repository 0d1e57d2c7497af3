/** The generated validators called directly (as the differentials call them), under a format policy. */
import { switchFormats } from "../../src/core/format-switch.js";
import type { Formats } from "../../src/core/formats.js";

/** `run()` with the format switch as `formats` says, as the runtime sets it before each call; restored afterwards. */
export function underFormats<T>(formats: Formats, run: () => T): T {
  const before = switchFormats(formats);
  try {
    return run();
  } finally {
    switchFormats(before ? "strict" : "annotation");
  }
}
