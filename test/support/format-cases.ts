/**
 * Strings real MCP clients and servers send verbatim where the schemas put a `format`, which every official SDK
 * accepts (its types are plain strings there) and a strict reading of the format refuses: the cases the `formats`
 * option is pinned by, each face and each era.
 */
import { MODERN_META } from "./messages.js";

/** Resource URIs as clients send them: spaces, non-ASCII, a Windows path, braces, a pipe, a relative path. */
export const RESOURCE_URIS = [
  "file:///srv/notes/My Notes.txt",
  "file:///srv/notes/café.md",
  "C:/Users/Łukasz/report (final).docx",
  "test://items/a b",
  "test://items/{x}",
  "a|b",
  "notes/relative.md",
];

/** A root as a desktop client lists it. */
export const ROOT_URI = "file:///Users/José/My Documents";

/** Base64 as `atob` reads it (forgiving: padding optional, ASCII whitespace skipped), not as RFC 4648 spells it. */
export const FORGIVING_BASE64 = ["aGVsbG8", "aGVs\nbG8=", "aGVs bG8="];

/** A template with a space in its literal part. */
export const URI_TEMPLATE = "file:///srv/My Notes/{name}";

/** An icon `src` relative to the server, and a website whose host is not ASCII. */
export const ICONS = [{ src: "icons/app.png" }];
export const WEBSITE_URL = "https://bücher.example/";

/** One inbound case: the body, its era, the header a face is sent, and where a strict reading of the format fails. */
export interface InboundCase {
  name: string;
  era: "legacy" | "modern";
  /** The `MCP-Protocol-Version` header. */
  protocolVersion: string;
  body: Record<string, unknown>;
  /** The location strict formats refuse first. */
  at: string;
}

const legacyRead = (revision: string, method: string, uri: string, i: number): InboundCase => ({
  name: `${revision} ${method} ${JSON.stringify(uri)}`,
  era: "legacy",
  protocolVersion: revision,
  body: { jsonrpc: "2.0", id: i + 1, method, params: { uri } },
  at: "/params/uri",
});

const modern = (name: string, method: string, params: Record<string, unknown>, at: string, i: number): InboundCase => ({
  name: `2026-07-28 ${name}`,
  era: "modern",
  protocolVersion: "2026-07-28",
  body: { jsonrpc: "2.0", id: 100 + i, method, params: { _meta: MODERN_META, ...params } },
  at,
});

/** Every inbound case, in both eras: legacy 2024-11-05 and 2025-11-25, modern 2026-07-28. */
export const INBOUND_CASES: InboundCase[] = [
  ...RESOURCE_URIS.map((uri, i) => legacyRead("2025-11-25", "resources/read", uri, i)),
  ...RESOURCE_URIS.map((uri, i) => legacyRead("2024-11-05", "resources/read", uri, i)),
  legacyRead("2024-11-05", "resources/subscribe", RESOURCE_URIS[0]!, 0),
  {
    name: "2025-11-25 initialize with a relative icon src",
    era: "legacy",
    protocolVersion: "2025-11-25",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1", icons: ICONS } },
    },
    at: "/params/clientInfo/icons/0/src",
  },
  {
    name: "2025-11-25 initialize with a non-ASCII websiteUrl",
    era: "legacy",
    protocolVersion: "2025-11-25",
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1", websiteUrl: WEBSITE_URL } },
    },
    at: "/params/clientInfo/websiteUrl",
  },
  ...RESOURCE_URIS.map((uri, i) => modern(`resources/read ${JSON.stringify(uri)}`, "resources/read", { uri }, "/params/uri", i)),
  modern(
    "completion/complete of a resource template with a space",
    "completion/complete",
    { ref: { type: "ref/resource", uri: URI_TEMPLATE }, argument: { name: "name", value: "a" } },
    "/params/ref/uri",
    20,
  ),
  modern(
    "tools/call answering roots/list with a root of spaces and non-ASCII",
    "tools/call",
    { name: "t", arguments: {}, inputResponses: { roots: { roots: [{ uri: ROOT_URI }] } } },
    "/params/inputResponses/roots/roots/0/uri",
    21,
  ),
  ...FORGIVING_BASE64.map((data, i) =>
    modern(
      `tools/call answering sampling with base64 ${JSON.stringify(data)}`,
      "tools/call",
      {
        name: "t",
        arguments: {},
        inputResponses: { sample: { role: "assistant", model: "m", content: { type: "image", mimeType: "image/png", data } } },
      },
      "/params/inputResponses/sample/content/data",
      30 + i,
    ),
  ),
];

/** One outbound case: a message a server sends (or a legacy client's answer), the request's method, where strict fails. */
export interface OutboundCase {
  name: string;
  era: "legacy" | "modern";
  protocolVersion: string;
  /** The method of the request the message answers. */
  method: string;
  message: Record<string, unknown>;
  at: string;
}

const result = (id: number, body: Record<string, unknown>) => ({ jsonrpc: "2.0", id, result: body });

const outboundIn = (era: "legacy" | "modern", protocolVersion: string): OutboundCase[] => {
  const complete = era === "modern" ? { resultType: "complete", cacheScope: "private", ttlMs: 0 } : {};
  return [
    ...RESOURCE_URIS.map((uri, i) => ({
      name: `${protocolVersion} resources/list result listing ${JSON.stringify(uri)}`,
      era,
      protocolVersion,
      method: "resources/list",
      message: result(i + 1, { ...complete, resources: [{ uri, name: "n" }] }),
      at: "/result/resources/0/uri",
    })),
    {
      name: `${protocolVersion} resources/templates/list result with a space in a template`,
      era,
      protocolVersion,
      method: "resources/templates/list",
      message: result(20, { ...complete, resourceTemplates: [{ uriTemplate: URI_TEMPLATE, name: "n" }] }),
      at: "/result/resourceTemplates/0/uriTemplate",
    },
    ...FORGIVING_BASE64.map((blob, i) => ({
      name: `${protocolVersion} resources/read result with base64 ${JSON.stringify(blob)}`,
      era,
      protocolVersion,
      method: "resources/read",
      message: result(30 + i, { ...complete, contents: [{ uri: "file:///srv/a.png", blob }] }),
      at: "/result/contents/0/blob",
    })),
  ];
};

/** Every outbound case: legacy 2024-11-05 and 2025-11-25 (with a client's roots answer), modern 2026-07-28. */
export const OUTBOUND_CASES: OutboundCase[] = [
  ...outboundIn("legacy", "2025-11-25"),
  ...outboundIn("legacy", "2024-11-05"),
  ...outboundIn("modern", "2026-07-28"),
  {
    name: "2025-11-25 a client's roots/list answer with a root of spaces and non-ASCII",
    era: "legacy",
    protocolVersion: "2025-11-25",
    method: "roots/list",
    message: result(40, { roots: [{ uri: ROOT_URI }] }),
    at: "/result/roots/0/uri",
  },
  {
    name: "2025-11-25 initialize result with a relative icon src and a non-ASCII websiteUrl",
    era: "legacy",
    protocolVersion: "2025-11-25",
    method: "initialize",
    message: result(41, {
      protocolVersion: "2025-11-25",
      capabilities: {},
      serverInfo: { name: "s", version: "1", icons: ICONS, websiteUrl: WEBSITE_URL },
    }),
    at: "/result/serverInfo/icons/0/src",
  },
];
