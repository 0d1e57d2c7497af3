/**
 * @module formats: the two readings of a schema's `format` (the `formats` rule off: `"annotation"`; enforced or
 * reporting: `"strict"`), apart from format-switch.ts so that knowing them loads no validator. By default a schema's
 * `format` (`uri`, `uri-template`, `byte`) is an annotation, as JSON Schema 2020-12 makes it without the
 * format-assertion vocabulary: the official SDKs accept any string in those places, and a gate must not refuse
 * what the server it protects would serve (docs/validation.md).
 */

/** `"annotation"`: formats are not asserted (default); `"strict"`: every format is asserted (RFC 3986, RFC 6570, base64). */
export type Formats = "annotation" | "strict";

export const FORMATS: readonly Formats[] = ["annotation", "strict"];

/** The reading of a face whose `formats` rule is off, its default (docs/validation.md says why). */
export const DEFAULT_FORMATS: Formats = "annotation";
