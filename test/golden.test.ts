import { describe, test } from "node:test";
import { validateMcpRequest, type Era } from "wymcp";
import { assertGolden } from "./support/golden.js";
import { MODERN_META, modernToolsCall } from "./support/messages.js";

// Representative rejections whose exact answer is pinned in test/golden/<name>.json.
const CASES: Array<[string, { era: Era; body: unknown; protocolVersion?: string }]> = [
  ["modern-tools-call-bad-params", { era: "modern", body: modernToolsCall({ params: { name: 5 } }) }],
  ["modern-tools-call-missing-meta-fields", { era: "modern", body: modernToolsCall({ params: { name: "t", _meta: {} } }) }],
  ["modern-prompts-get-non-string-arguments", { era: "modern", body: { jsonrpc: "2.0", id: "p1", method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: { a: 1, b: true } } } }],
  ["modern-resources-read-relative-uri", { era: "modern", body: { jsonrpc: "2.0", id: 4, method: "resources/read", params: { _meta: MODERN_META, uri: "not a uri" } } }],
  ["modern-client-response", { era: "modern", body: { jsonrpc: "2.0", id: 9, result: {} } }],
  ["modern-bad-framing-unknown-method", { era: "modern", body: { jsonrpc: "2.0", id: 1.5, method: "vendor/x", params: [] } }],
  ["legacy-bad-request-envelope", { era: "legacy", body: { jsonrpc: "1.0", id: "r1", method: 3 } }],
  ["legacy-bad-notification", { era: "legacy", body: { jsonrpc: "2.0", method: "notifications/x", params: "junk" } }],
  ["legacy-batch-under-2025-06-18", { era: "legacy", body: [{ jsonrpc: "2.0", id: 1, method: "ping" }], protocolVersion: "2025-06-18" }],
  ["legacy-batch-bad-items", { era: "legacy", body: [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "1.0", id: 2, method: "tools/list" }, 5] }],
  ["legacy-object-of-no-kind", { era: "legacy", body: { jsonrpc: "2.0", id: 1 } }],
  ["modern-many-bad-arguments-bounded", { era: "modern", body: { jsonrpc: "2.0", id: 5, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) } } }],
];

describe("golden answers for representative rejections", () => {
  for (const [name, { era, body, protocolVersion }] of CASES) {
    test(`${name} answers exactly as pinned`, () => {
      const result = validateMcpRequest(body, era, { protocolVersion });
      assertGolden(name, result);
    });
  }
});
