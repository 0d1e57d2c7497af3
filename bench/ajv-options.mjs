/**
 * @module Ajv options as JSON and back: the start-up child rebuilds exactly the options codegen used (ajvOptions).
 */

/** Options → JSON-safe data: each format RegExp becomes its source and flags. */
export function serializeOptions(options) {
  const formats = Object.fromEntries(
    Object.entries(options.formats ?? {}).map(([name, re]) => [name, { source: re.source, flags: re.flags }]),
  );
  return { ...options, formats };
}

export function reviveOptions(data) {
  const formats = Object.fromEntries(
    Object.entries(data.formats ?? {}).map(([name, { source, flags }]) => [name, new RegExp(source, flags)]),
  );
  return { ...data, formats };
}
