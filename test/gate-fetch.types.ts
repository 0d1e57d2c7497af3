/**
 * Type test, compiled by `npm run typecheck` (never run): the two shapes `gateFetch` takes, and the wrong ones it
 * refuses at compile time instead of answering 500 at run time. Each `@ts-expect-error` fails the type check if the
 * line below it ever compiles.
 */
import type { HttpTransport } from "@tmcp/transport-http";
import type { createMcpHandler as createSdkHandler } from "@modelcontextprotocol/server";
import type { Hono } from "hono";
import type { createMcpHandler as createVercelHandler } from "mcp-handler";
import { gateFetch, type McpFetchHandler } from "wymcp/fetch";

declare const sdk: ReturnType<typeof createSdkHandler>;
declare const vercel: ReturnType<typeof createVercelHandler>;
declare const transport: HttpTransport;
declare const app: Hono;
interface Env {
  TOKEN: string;
}
declare const ctx: { waitUntil(promise: Promise<unknown>): void };

// The SDK's shape: the handler gets the parsed body and authInfo.
const fromSdk: (request: Request, ...host: unknown[]) => Promise<Response> = gateFetch(sdk);
gateFetch(sdk, { authInfo: () => ({ token: "t", clientId: "c", scopes: [] }) });
const declared: McpFetchHandler = { fetch: (request, options) => sdk.fetch(request, options as Parameters<typeof sdk.fetch>[1]) };
gateFetch(declared);
// A fetch that takes no request reads no body: nothing of it can be found already read.
gateFetch({ fetch: async () => new Response("{}") });

// Plain functions: mcp-handler, tmcp's transport, Hono's app.fetch, a Workers handler with its env and ctx.
const fromVercel: (request: Request) => Promise<Response> = gateFetch(vercel);
gateFetch(async (request: Request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }));
const fromHono = gateFetch(app.fetch);
void fromHono(new Request("http://localhost/mcp"), { TOKEN: "t" });
const workers = gateFetch((request: Request, env: Env, context: typeof ctx) => {
  context.waitUntil(Promise.resolve(env.TOKEN));
  return new Response(request.method);
});
void workers(new Request("http://localhost/mcp"), { TOKEN: "t" }, ctx);
// @ts-expect-error the host arguments keep the handler's types: a Workers handler needs its env
void workers(new Request("http://localhost/mcp"));

// @ts-expect-error an object whose fetch ignores parsedBody would find the body already read: a plain function is its shape
gateFetch({ fetch: (request: Request) => vercel(request) });
// @ts-expect-error a Hono app is an object whose fetch takes Workers bindings, not parsedBody: pass app.fetch
gateFetch(app);
// @ts-expect-error tmcp's transport is neither shape: wrap transport.respond in a function that answers every request
gateFetch(transport);
// @ts-expect-error respond() may resolve to null, which is no answer
gateFetch((request: Request) => transport.respond(request));
// @ts-expect-error a plain handler does its own auth: authInfo is for the SDK's shape only
gateFetch(vercel, { authInfo: () => undefined });
// @ts-expect-error a handler must answer with a Response
gateFetch((request: Request) => request.url);

export { fromSdk, fromVercel };
