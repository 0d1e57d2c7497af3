import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { validateMcpRequest } from "wymcp";
import { MODERN_META, modernToolsCall } from "./support/messages.js";

const AT = "/params/inputResponses/a";

/** A tools/call retried with one MRTR sampling answer whose `content` is `content`. */
function samplingAnswer(content: unknown) {
  return modernToolsCall({ params: { _meta: MODERN_META, name: "t", inputResponses: { a: { role: "user", model: "m", content } } } });
}

function located(body: unknown): string[] {
  const result = validateMcpRequest(body, "modern");
  assert.equal(result.outcome, "reject");
  return result.response.error.data!.errors.map((e) => `${e.instancePath} ${e.messages.join(" | ")}`);
}

const UNION = "must match one of the allowed shapes";

// Without branch selection each of these listed every content type's required fields (up to 124 locations).
const CASES: Array<[string, { body: unknown; want: string[] }]> = [
  [
    "a text block missing its text is reported as that, in an array of blocks",
    {
      body: samplingAnswer([{ type: "text" }, { type: "image", data: "aGk=" }]),
      want: [
        `${AT} ${UNION}`,
        `${AT}/content ${UNION}`,
        `${AT}/content/0 ${UNION}`,
        `${AT}/content/0/text is required`,
        `${AT}/content/1 ${UNION}`,
        `${AT}/content/1/mimeType is required`,
      ],
    },
  ],
  [
    "a wrong-typed member of a single block is reported at that member",
    {
      body: samplingAnswer({ type: "text", text: 5 }),
      want: [`${AT} ${UNION}`, `${AT}/content ${UNION}`, `${AT}/content/text must be string`],
    },
  ],
  [
    "the discriminator decides: an image block lacking data is not judged as text",
    {
      body: samplingAnswer({ type: "image" }),
      want: [`${AT} ${UNION}`, `${AT}/content ${UNION}`, `${AT}/content/data is required`, `${AT}/content/mimeType is required`],
    },
  ],
  [
    "an unknown discriminator is reported against the closest branch",
    {
      body: samplingAnswer([{ type: "texto", text: "x" }]),
      want: [`${AT} ${UNION}`, `${AT}/content ${UNION}`, `${AT}/content/0 ${UNION}`, `${AT}/content/0/type must equal "text"`],
    },
  ],
  [
    "branches that all reject the value's type are all kept, their messages merged",
    {
      body: samplingAnswer("hello"),
      want: [`${AT} ${UNION}`, `${AT}/content must be object | must be array | ${UNION}`],
    },
  ],
  [
    "a recursive JSONValue keeps every alternative for a value no branch takes",
    {
      // JSONValue takes every JSON value (null and fractions too, as the spec's text says); a parsed body handed to the
      // pure check can still hold what JSON cannot, such as an infinite number.
      body: modernToolsCall({
        params: {
          name: "t",
          _meta: { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { experimental: { x: { y: Number.POSITIVE_INFINITY } } } },
        },
      }),
      want: [
        `/params/_meta/io.modelcontextprotocol~1clientCapabilities/experimental/x/y must be object | must be array | must be string, number, boolean or null | ${UNION}`,
      ],
    },
  ],
];

describe("of a failed anyOf, the answer lists the branch the client most likely meant", () => {
  for (const [name, { body, want }] of CASES) test(name, () => assert.deepEqual(located(body), want));

  test("the summary names the first concrete problem, not the union", () => {
    const result = validateMcpRequest(samplingAnswer({ type: "text", text: 5 }), "modern");
    assert.equal(result.outcome, "reject");
    assert.match(result.response.error.message, /3 invalid locations; first: \/params\/inputResponses\/a\/content\/text must be string$/);
  });

  test("a union some branch satisfies leaves no trace in a passing message", () => {
    assert.equal(validateMcpRequest(samplingAnswer([{ type: "text", text: "ok" }]), "modern").outcome, "pass");
  });
});
