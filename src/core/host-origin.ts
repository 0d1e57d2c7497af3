/**
 * @module host-origin: DNS rebinding protection. A request whose `Host` names no allowed host, or whose `Origin` names
 * neither an allowed origin nor an allowed host, is answered `403` with a JSON-RPC error that has no `id`. An absent
 * `Origin` is allowed: clients that are not browsers send none, and a browser always sends one on a cross-origin POST.
 * Nothing of either header enters the answer. Web APIs only (`URL`).
 */
/** The hosts and origins a face allows, checked and lower-cased; `undefined` on a face means the check is off. */
export interface HostPolicy {
  /** `host:port` (that port only) or `host` (any port); IPv6 in brackets, `[::1]:3000`. Empty: `Host` is not checked. */
  readonly hosts: readonly string[];
  /** Exact origins, `scheme://host[:port]`, or `null` for an opaque origin. */
  readonly origins: readonly string[];
}

/** The JSON-RPC code of the `403` answer (a server error, as the official SDK's own host check answers). */
export const FORBIDDEN_CODE = -32000;

/** What a face answers a forbidden request: `403` and a JSON-RPC error with no `id`. */
export interface ForbiddenAnswer {
  status: 403;
  reason: "forbidden-host" | "forbidden-origin";
  response: { jsonrpc: "2.0"; error: { code: number; message: string } };
}

const MESSAGES = {
  "forbidden-host": "Forbidden: the Host header names no host this server allows",
  "forbidden-origin": "Forbidden: the Origin header names no origin this server allows",
} as const;

/**
 * The loopback names, on any port: what a server listening on a loopback address allows by default. The attack is a
 * foreign name resolving to loopback; a client that leaves the port out of `Host` is no such name.
 */
export const LOOPBACK_POLICY: HostPolicy = Object.freeze({
  hosts: Object.freeze(["localhost", "127.0.0.1", "[::1]"]),
  origins: Object.freeze([]),
});

/** Whether `host` (as a listener is given it) is a loopback address or name. */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * The `403` for a request's `Host` and `Origin` under `policy`, or `undefined` when both are allowed. With hosts listed,
 * a missing `Host` is refused; an `Origin` passes when it is listed, or when its host is an allowed one.
 */
export function checkHostOrigin(
  policy: HostPolicy,
  host: string | null | undefined,
  origin: string | null | undefined,
): ForbiddenAnswer | undefined {
  if (policy.hosts.length > 0 && (host == null || !hostAllowed(policy.hosts, host.trim().toLowerCase())))
    return forbidden("forbidden-host");
  if (origin == null) return undefined;
  const given = origin.trim().toLowerCase();
  if (policy.origins.includes(given)) return undefined;
  const originHost = hostOfOrigin(given);
  if (originHost !== undefined && hostAllowed(policy.hosts, originHost)) return undefined;
  return forbidden("forbidden-origin");
}

function forbidden(reason: ForbiddenAnswer["reason"]): ForbiddenAnswer {
  return { status: 403, reason, response: { jsonrpc: "2.0", error: { code: FORBIDDEN_CODE, message: MESSAGES[reason] } } };
}

/** `host` against the list: an entry with a port matches that port only, one without matches any port. */
function hostAllowed(hosts: readonly string[], host: string): boolean {
  if (hosts.includes(host)) return true;
  const name = hostName(host);
  return name !== host && hosts.includes(name);
}

/** `example.com:80` → `example.com`; `[::1]:80` → `[::1]`; a host with no port is itself. */
function hostName(host: string): string {
  const colon = host.lastIndexOf(":");
  if (colon < 0 || host.endsWith("]")) return host;
  return /^\d+$/.test(host.slice(colon + 1)) ? host.slice(0, colon) : host;
}

/** The `host[:port]` of an http(s) origin, the default port left out as `URL` leaves it; `undefined` for any other. */
function hostOfOrigin(origin: string): string | undefined {
  if (!origin.startsWith("http://") && !origin.startsWith("https://")) return undefined;
  try {
    const url = new URL(origin);
    return url.origin === origin || `${url.origin}/` === origin ? url.host : undefined;
  } catch {
    return undefined;
  }
}
