import type { Options } from "ajv";

/** JSON-safe options: each format RegExp as its source and flags. */
export interface SerializedOptions extends Omit<Options, "formats"> {
  formats: Record<string, { source: string; flags: string }>;
}

export declare function serializeOptions(options: Options): SerializedOptions;
export declare function reviveOptions(data: SerializedOptions): Options;
