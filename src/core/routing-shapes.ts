/**
 * @module routing-shapes: the shapes the official SDK's router tests before it picks a lane, restated
 * without the SDK (the core imports neither Node nor the SDK). Each predicate mirrors one of the SDK's
 * Zod schemas (`@modelcontextprotocol/server` 2.4.0); test/routing-differential.test.ts holds them equal.
 */

export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";
const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";
const REVISION_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Whether a value has the shape of a revision (a date); revisions then compare as strings, and every one
 * from the first modern revision on is modern (later revisions join the same way).
 */
export function isRevision(value: string): boolean {
  return REVISION_SHAPE.test(value);
}

const LOG_LEVELS: ReadonlySet<unknown> = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

type Json = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON-RPC id as the SDK takes it: a string or a safe integer (Zod's `int()`); `null` and `1.5` are not. */
function isId(value: unknown): boolean {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/** Zod's `.strict()`: every own key is a declared one, whatever its value. */
function onlyKeys(value: Json, allowed: readonly string[]): boolean {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) return false;
  return true;
}

/** Request and notification `params`: an object whose `_meta`, if any, is an object with a well-typed progress token and task link. */
function isParams(params: unknown): boolean {
  if (params === undefined) return true;
  if (!isPlainObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  if (meta.progressToken !== undefined && !isId(meta.progressToken)) return false;
  const task = meta[RELATED_TASK_META_KEY];
  return task === undefined || (isPlainObject(task) && typeof task.taskId === "string");
}

export function isJsonRpcRequest(body: Json): boolean {
  return (
    onlyKeys(body, ["jsonrpc", "id", "method", "params"]) &&
    body.jsonrpc === "2.0" &&
    isId(body.id) &&
    typeof body.method === "string" &&
    isParams(body.params)
  );
}

export function isJsonRpcNotification(body: Json): boolean {
  return (
    onlyKeys(body, ["jsonrpc", "method", "params"]) && body.jsonrpc === "2.0" && typeof body.method === "string" && isParams(body.params)
  );
}

/** A result or an error response; the SDK reads neither further. */
export function isJsonRpcResponse(body: Json): boolean {
  if (body.jsonrpc !== "2.0") return false;
  // Neither branch lets a `method` member through: a request (every request's era is decided) is told at once.
  if (Object.hasOwn(body, "method")) return false;
  if (onlyKeys(body, ["jsonrpc", "id", "result"]) && isId(body.id) && isPlainObject(body.result)) {
    const meta = body.result._meta;
    return meta === undefined || isPlainObject(meta);
  }
  if (!onlyKeys(body, ["jsonrpc", "id", "error"]) || (body.id !== undefined && !isId(body.id))) return false;
  const error = body.error;
  return isPlainObject(error) && Number.isSafeInteger(error.code) && typeof error.message === "string";
}

export function isJsonRpcMessage(body: unknown): boolean {
  return isPlainObject(body) && (isJsonRpcRequest(body) || isJsonRpcNotification(body) || isJsonRpcResponse(body));
}

/** The `_meta` object of `params`, when both are objects. */
export function metaOf(params: unknown): Json | undefined {
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) ? meta : undefined;
}

/** Whether the protocol-version key is present (`in`, as the SDK tests it), whatever its value. */
export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * The SDK's 2026-07-28 `_meta` envelope, whole: a string version, capabilities, and every reserved key well-typed.
 * Of a request whose framing passed (`isJsonRpcRequest`): the progress token is the framing's to check.
 */
export function isValidEnvelope(meta: Json): boolean {
  if (typeof meta[PROTOCOL_VERSION_META_KEY] !== "string") return false;
  const info = meta[CLIENT_INFO_META_KEY];
  if (info !== undefined && !isImplementation(info)) return false;
  if (!isClientCapabilities(meta[CLIENT_CAPABILITIES_META_KEY])) return false;
  const level = meta[LOG_LEVEL_META_KEY];
  return level === undefined || LOG_LEVELS.has(level);
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isImplementation(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (typeof value.name !== "string" || typeof value.version !== "string") return false;
  if (!optionalString(value.title) || !optionalString(value.websiteUrl) || !optionalString(value.description)) return false;
  const icons = value.icons;
  return icons === undefined || (Array.isArray(icons) && icons.every(isIcon));
}

function isIcon(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.src !== "string" || !optionalString(value.mimeType)) return false;
  const { sizes, theme } = value;
  if (sizes !== undefined && !(Array.isArray(sizes) && sizes.every((size) => typeof size === "string"))) return false;
  return theme === undefined || theme === "light" || theme === "dark";
}

/** The 2026-07-28 client capabilities: unknown members (`tasks` included) are dropped unread. */
function isClientCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const { experimental, sampling, elicitation, roots, extensions } = value;
  if (experimental !== undefined && !isRecordOfJsonObjects(experimental)) return false;
  if (extensions !== undefined && !isRecordOfJsonObjects(extensions)) return false;
  if (sampling !== undefined) {
    if (!isPlainObject(sampling)) return false;
    if (sampling.context !== undefined && !isJsonObject(sampling.context)) return false;
    if (sampling.tools !== undefined && !isJsonObject(sampling.tools)) return false;
  }
  if (roots !== undefined && !(isPlainObject(roots) && (roots.listChanged === undefined || typeof roots.listChanged === "boolean")))
    return false;
  if (elicitation !== undefined) {
    // Every member must be JSON; `form` and `url` are objects, `form.applyDefaults` a boolean.
    if (!isJsonObject(elicitation)) return false;
    const { form, url } = elicitation;
    if (url !== undefined && !isJsonObject(url)) return false;
    if (form !== undefined && !(isJsonObject(form) && (form.applyDefaults === undefined || typeof form.applyDefaults === "boolean")))
      return false;
  }
  return true;
}

function isRecordOfJsonObjects(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key of Object.keys(value)) if (!isJsonObject(value[key])) return false;
  return true;
}

/** Zod's `JSONValue` record: finite numbers only, no `undefined`; walked with a stack, not recursion. */
function isJsonObject(value: unknown): value is Json {
  if (!isPlainObject(value)) return false;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next === "string" || typeof next === "boolean") continue;
    if (typeof next === "number") {
      if (!Number.isFinite(next)) return false;
      continue;
    }
    if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
      continue;
    }
    if (!isPlainObject(next)) return false;
    for (const key of Object.keys(next)) pending.push(next[key]);
  }
  return true;
}
