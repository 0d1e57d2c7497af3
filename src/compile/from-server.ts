/**
 * @module from-server: `wymcp compile --from <url>` and `--from-stdio -- <command> [args...]`: a running server's
 * `tools/list`, every page, asked through the official client (`@modelcontextprotocol/client`, an optional peer
 * dependency this module alone imports; the CLI loads it only for these two flags).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { WYMCP_VERSION } from "./version.js";

export type ServerSource = { url: string; headers: Record<string, string> } | { command: string; args: string[] };

export interface ListedTools {
  /** The pages' tools, in order, as the server wrote them (not re-validated: --lint is there to judge them). */
  tools: unknown[];
  pages: number;
}

/** Bounds on a server that pages forever or answers too much: the compile step is no place to hang. */
export const LIST_LIMITS = { pages: 1000, tools: 100_000, timeoutMs: 30_000 } as const;

export class ServerListError extends Error {
  override name = "ServerListError";
}

// The result as the server sent it: the SDK's own result schema would refuse exactly the tools --lint is meant to report.
const rawResult = {
  "~standard": {
    version: 1 as const,
    vendor: "wymcp",
    validate: (value: unknown) =>
      value !== null && typeof value === "object" && Array.isArray((value as { tools?: unknown }).tools)
        ? { value: value as { tools: unknown[]; nextCursor?: unknown } }
        : { issues: [{ message: "the tools/list result has no tools array" }] },
  },
};

/** Connects (the client picks the era the server speaks), lists every page, closes. */
export async function listServerTools(source: ServerSource, limits = LIST_LIMITS): Promise<ListedTools> {
  const client = new Client({ name: "wymcp-compile", version: WYMCP_VERSION });
  const transport =
    "url" in source
      ? new StreamableHTTPClientTransport(new URL(source.url), { requestInit: { headers: source.headers } })
      : // The command is the user's own, typed as in a shell: it gets their environment, and its stderr is theirs to read.
        new StdioClientTransport({ command: source.command, args: source.args, env: definedEnv(), stderr: "inherit" });
  try {
    await client.connect(transport, { timeout: limits.timeoutMs });
    const tools: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (pages === limits.pages) throw new ServerListError(`tools/list did not end after ${limits.pages} pages`);
      const page = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, rawResult as never, {
        timeout: limits.timeoutMs,
      });
      pages++;
      const { tools: listed, nextCursor } = page as { tools: unknown[]; nextCursor?: unknown };
      // Checked before it is added: a page of more tools than a spread takes would overflow the stack first.
      if (tools.length + listed.length > limits.tools) throw new ServerListError(`tools/list listed more than ${limits.tools} tools`);
      for (const tool of listed) tools.push(tool);
      if (nextCursor !== undefined && nextCursor !== null && typeof nextCursor !== "string")
        throw new ServerListError("tools/list answered a nextCursor that is not a string");
      cursor = typeof nextCursor === "string" ? nextCursor : undefined;
      // A cursor seen before would list the same pages again, forever.
      if (cursor !== undefined && seen.has(cursor)) throw new ServerListError("tools/list answered a nextCursor it had answered before");
      if (cursor !== undefined) seen.add(cursor);
    } while (cursor !== undefined);
    return { tools, pages };
  } finally {
    await client.close().catch(() => {});
  }
}

function definedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return env;
}
