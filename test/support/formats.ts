/** The generated validators called directly (as the differentials call them), under a format policy. */
import { restoreFormats, switchFormats } from "../../src/core/format-switch.js";
import type { Formats } from "../../src/core/formats.js";

/** `run()` with the format switch as `formats` says, restored afterwards as the runtime restores it. */
export function underFormats<T>(formats: Formats, run: () => T): T {
  const before = switchFormats(formats);
  try {
    return run();
  } finally {
    restoreFormats(before);
  }
}
