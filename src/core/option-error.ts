/**
 * @module option-error: the one error a face throws for a bad option. A module of its own so that every entry of the
 * built package throws the same class (the entries import it from the core, `wymcp`, rather than each carrying a copy).
 */

/**
 * A face built with a bad option: the host's bug, thrown when the gate, guard or check is built, never per request. A
 * `RangeError` (a value outside what the option allows), as the `maxDepth` check always threw.
 */
export class WymcpOptionError extends RangeError {
  override name = "WymcpOptionError";
  /** The option's name, as the caller spelled it in the options object. */
  readonly option: string;
  constructor(option: string, message: string) {
    super(`wymcp: ${message}`);
    this.option = option;
  }
}
