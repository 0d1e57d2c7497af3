import type { JsonSchema, SpecSchema } from "./load-spec.js";
import type { RevisionsConfig } from "./select-revisions.js";

/** An era's description in `schemas/<era>.json`. */
export interface EraConfig {
  era: string;
  revision: string;
  /** Definitions compiled as framing validators, exported under their own names. */
  framing: string[];
  /** The union whose members are the client request methods validated one by one, or null. */
  requestUnion: string | null;
  /** JSON-RPC batches, where an earlier revision of the era allowed them: their items' framing comes from it. */
  batch?: BatchConfig;
  /** The era's revisions, each client method judged by its own revision's definition (select-revisions.ts). */
  revisions?: RevisionsConfig;
}

export interface BatchConfig {
  /** The revision whose framing judges each item of a batch. */
  revision: string;
  framing: string[];
  /** A batch sent under an `MCP-Protocol-Version` header naming this revision or a later one is refused. */
  refusedFromRevision: string;
}

export interface Selection {
  config: EraConfig;
  spec: SpecSchema;
  /** Every definition of the revision, by name. */
  defs: Record<string, JsonSchema>;
  /** Definition names that become exported validators, in a stable order. */
  entries: string[];
  /** Client request method → the definition that describes it, in the union's order. */
  methods: Array<{ method: string; definition: string }>;
}

export class SelectionError extends Error {
  override name = "SelectionError";
}

const REF_PREFIX = "#/$defs/";

export function selectDefinitions(config: EraConfig, spec: SpecSchema): Selection {
  const defs = (spec.schema.$defs ?? spec.schema.definitions) as Record<string, JsonSchema> | undefined;
  if (!defs) throw new SelectionError(`revision ${spec.revision} has no $defs`);
  const need = (name: string, why: string): JsonSchema => {
    const def = defs[name];
    if (!def) throw new SelectionError(`revision ${spec.revision} has no definition ${name} (${why})`);
    return def;
  };
  for (const name of config.framing) need(name, `framing of ${config.era}`);

  const methods: Selection["methods"] = [];
  if (config.requestUnion) {
    const union = need(config.requestUnion, `requestUnion of ${config.era}`);
    const members = (union.anyOf ?? union.oneOf) as JsonSchema[] | undefined;
    if (!Array.isArray(members)) throw new SelectionError(`${config.requestUnion} is not an anyOf/oneOf union`);
    for (const member of members) {
      const definition = refName(member.$ref);
      const method = (need(definition, `member of ${config.requestUnion}`).properties as JsonSchema | undefined)?.method as
        | JsonSchema
        | undefined;
      if (typeof method?.const !== "string") throw new SelectionError(`${definition} has no constant method`);
      methods.push({ method: method.const, definition });
    }
  }
  const entries = [...config.framing, ...methods.map((m) => m.definition).filter((d) => !config.framing.includes(d))];
  return { config, spec, defs, entries, methods };
}

export function refName(ref: unknown): string {
  if (typeof ref !== "string" || !ref.startsWith(REF_PREFIX)) throw new SelectionError(`unsupported $ref ${String(ref)}`);
  return ref.slice(REF_PREFIX.length);
}
