/**
 * A server whose `tools/list` depends on the caller, as a multi-tenant server's does: the SDK v2 factory reads the
 * bearer token of each request and registers the tools of that user. Each has `pick`, whose `project` is one of the
 * user's own projects (a per-user enum), and answers with what it saw, so a test can tell the server's answer from the
 * edge's. Also the raw requests that list and call as one user or another.
 */
import { type McpRequestContext, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { edgeRequest } from "./edge-tools.js";

/** Each user's token and projects; a request with no token (or another) is the anonymous caller. */
export const USERS = {
  alice: { token: "alice-secret-7f3a9c", projects: ["apollo", "gemini"] },
  bob: { token: "bob-secret-52e1d8", projects: ["mercury"] },
} as const;
const ANONYMOUS_PROJECTS = ["public"] as const;

export type User = keyof typeof USERS | "anonymous";

/** The user a request's `Authorization: Bearer …` names (or its `X-Api-Key`, for a server that reads that instead). */
export function userOf(headers: Headers | undefined): User {
  const bearer = /^Bearer (.+)$/i.exec(headers?.get("authorization") ?? "")?.[1] ?? headers?.get("x-api-key") ?? undefined;
  for (const [name, user] of Object.entries(USERS)) if (user.token === bearer) return name as User;
  return "anonymous";
}

/** The SDK v2 factory: the tools of the user the request's token names. */
export function callerToolsServer(ctx: McpRequestContext): McpServer {
  const user = userOf(ctx.requestInfo?.headers);
  const projects = user === "anonymous" ? ANONYMOUS_PROJECTS : USERS[user].projects;
  const server = new McpServer({ name: "wymcp-caller-tools", version: "1.0.0" });
  server.registerTool(
    "pick",
    { inputSchema: z.object({ project: z.enum(projects as unknown as [string, ...string[]]) }) },
    async (args) => ({
      content: [{ type: "text" as const, text: `${user} picked ${args.project}` }],
    }),
  );
  return server;
}

/** A request of `era` as `user` (its bearer token in `Authorization`; none for the anonymous caller). */
export function asUser(
  user: User,
  era: string,
  method: string,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
): { headers: Record<string, string>; body: string } {
  const auth: Record<string, string> = user === "anonymous" ? {} : { authorization: `Bearer ${USERS[user].token}` };
  return edgeRequest(era, method, params, { ...auth, ...extra });
}
