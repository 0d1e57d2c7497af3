/**
 * @module caller-key: who asks, as the tools at the edge tell callers apart. A server may list other tools, or the same
 * tool with another schema, to each caller; the tools learned from one caller's `tools/list` then judge that caller's
 * calls alone. A caller is what its requests carry that may select its tools: its credentials (`Authorization`, and
 * what the face hands the server as its authentication), its cookies, its legacy session, the URL it calls, and the
 * headers the operator names. They are kept only as a SHA-256 digest salted per face, never in clear. Web APIs only.
 */
import { describeValue, WymcpOptionError } from "../options/options.js";
import { sha256Hex } from "../wire/sha256.js";

/** The headers that tell callers apart by default: credentials, cookies, the legacy session. */
export const CALLER_HEADERS: readonly string[] = ["authorization", "cookie", "mcp-session-id"];

/** What one request carries that tells its caller apart; read only when a check needs the caller. */
export interface CallerSource {
  /** A request header by its lower-case name (a repeated one as the host gives it). */
  header(name: string): string | readonly string[] | null | undefined;
  /** The URL the request names: on Node its `Host` and request target, on Fetch the whole URL. */
  url: string;
  /** What the face hands the server as the caller's authentication (Node's `req.auth`, the Fetch gate's `authInfo`). */
  auth?: unknown;
}

/** A caller's key, its digest taken when a check first asks for it: a request that is neither a list nor a call never pays. */
export type CallerKey = () => string;

/** The one caller of a stream face (stdio: one client on the pipe), and of a face that names none. */
export const ONE_CALLER: CallerKey = () => "";

/** The lowercase hex SHA-256 of a text's UTF-8 bytes: the core's own, or a host's native one. */
export type Sha256 = (text: string) => string;

/** The header names of a `callerHeaders` option, checked: tokens, lower-cased, after the default ones. */
export function callerHeaders(value: unknown): readonly string[] {
  if (value === undefined) return CALLER_HEADERS;
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string" && /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)))
    throw new WymcpOptionError("tools.callerHeaders", `tools.callerHeaders must be a list of header names, not ${describeValue(value)}`);
  return [...new Set([...CALLER_HEADERS, ...value.map((name: string) => name.toLowerCase())])];
}

/**
 * The keys of one face: `headers` and the URL and authentication of each request, hashed after a salt of 16 random bytes
 * drawn here, so a digest seen anywhere (a heap dump) cannot be matched against a guessed token from outside this face.
 */
export function callerKeys(headers: readonly string[]): (source: CallerSource, sha256?: Sha256) => CallerKey {
  const salt = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return (source, sha256 = sha256Hex) => {
    let key: string | undefined;
    return () => (key ??= sha256(callerText(salt, headers, source)));
  };
}

/** Each part as its length, a colon and itself (an absent one as `-`), so no two sets of parts make the same text. */
function callerText(salt: string, headers: readonly string[], source: CallerSource): string {
  let text = `${salt}${part(source.url)}`;
  for (const name of headers) {
    const value = source.header(name);
    text += part(Array.isArray(value) ? value.join("\n") : (value as string | null | undefined));
  }
  const { token, clientId } = typeof source.auth === "object" && source.auth !== null ? (source.auth as Record<string, unknown>) : {};
  return text + part(typeof token === "string" ? token : undefined) + part(typeof clientId === "string" ? clientId : undefined);
}

function part(value: string | null | undefined): string {
  return value === undefined || value === null ? "-" : `${value.length}:${value}`;
}
