/**
 * The official TypeScript client v2 driving one session through the scenarios test/python/drive.py drives, so that the
 * TypeScript and Python clients see the same things of a server, gated and ungated.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export const MODERN = "2026-07-28";
export type Mode = "legacy" | typeof MODERN;

type Transport = { http: URL } | { stdio: string[] };

/** A tool call's result, or the JSON-RPC error code it was refused with. */
async function outcome(call: Promise<{ isError?: boolean; content?: unknown }>) {
  try {
    const result = await call;
    return { isError: result.isError === true, content: result.content };
  } catch (error) {
    if (error instanceof ProtocolError) return { refused: error.code };
    throw error;
  }
}

/** One session: connect in `mode`, run the scenario, close; resolves to what the client saw. */
export async function tsSession(
  target: Transport,
  mode: Mode,
  scenario: "echo" | "filesystem" = "echo",
  dir = "",
): Promise<Record<string, unknown>> {
  const client = new Client(
    { name: "wymcp-reach", version: "0.0.0" },
    mode === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const transport =
    "http" in target
      ? new StreamableHTTPClientTransport(target.http)
      : new StdioClientTransport({ command: target.stdio[0]!, args: target.stdio.slice(1), stderr: "ignore" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    const version = client.getNegotiatedProtocolVersion();
    if (scenario === "filesystem") {
      return {
        version,
        tools,
        allowed: await outcome(client.callTool({ name: "list_allowed_directories", arguments: {} })),
        read: await outcome(client.callTool({ name: "read_text_file", arguments: { path: `${dir}/hello.txt` } })),
        list: await outcome(client.callTool({ name: "list_directory", arguments: { path: dir } })),
        outside: await outcome(client.callTool({ name: "read_text_file", arguments: { path: "/etc/hostname" } })),
        "wrong arguments": await outcome(client.callTool({ name: "read_text_file", arguments: { path: 5 } })),
      };
    }
    const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
    const resource = await client.readResource({ uri: "file:///readme.txt" });
    return {
      version,
      tools,
      echo: await outcome(client.callTool({ name: "echo", arguments: { text: "héllo" } })),
      add: await outcome(client.callTool({ name: "add", arguments: { a: 2, b: 3 } })),
      "wrong arguments": await outcome(client.callTool({ name: "add", arguments: { a: "two", b: 3 } })),
      prompt: prompt.messages,
      resource: resource.contents,
    };
  } finally {
    await client.close();
  }
}
