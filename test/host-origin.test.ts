import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkHostOrigin, isLoopback, LOOPBACK_POLICY } from "../src/core/host-origin.js";
import { hostPolicyOption, WymcpOptionError } from "../src/options/options.js";

const policy = hostPolicyOption(["localhost:3000", "api.example"], ["https://app.example"])!;

type Case = [string, { host: string | undefined; origin: string | undefined; want: "allowed" | "forbidden-host" | "forbidden-origin" }];

const CASES: Case[] = [
  [
    "a listed host:port with no Origin is allowed (clients that are not browsers send none)",
    { host: "localhost:3000", origin: undefined, want: "allowed" },
  ],
  ["a host is matched in any case", { host: "LOCALHOST:3000", origin: undefined, want: "allowed" }],
  ["a listed host:port on another port is refused", { host: "localhost:4000", origin: undefined, want: "forbidden-host" }],
  ["a listed bare host allows any port", { host: "api.example:8443", origin: undefined, want: "allowed" }],
  ["a foreign host (DNS rebinding) is refused", { host: "evil.example:3000", origin: undefined, want: "forbidden-host" }],
  ["a missing Host is refused when hosts are listed", { host: undefined, origin: undefined, want: "forbidden-host" }],
  ["a listed origin is allowed", { host: "localhost:3000", origin: "https://app.example", want: "allowed" }],
  ["an origin of an allowed host is allowed", { host: "localhost:3000", origin: "http://localhost:3000", want: "allowed" }],
  ["a foreign origin is refused", { host: "localhost:3000", origin: "http://evil.example", want: "forbidden-origin" }],
  ["an opaque origin (null) is refused unless listed", { host: "localhost:3000", origin: "null", want: "forbidden-origin" }],
  ["an origin with a path is no origin", { host: "localhost:3000", origin: "https://app.example/x", want: "forbidden-origin" }],
];

describe("Host and Origin against the allowed hosts and origins", () => {
  for (const [name, { host, origin, want }] of CASES) {
    test(name, () => {
      const answer = checkHostOrigin(policy, host, origin);
      if (want === "allowed") return assert.equal(answer, undefined);
      assert.equal(answer?.status, 403);
      assert.equal(answer?.reason, want);
      assert.equal("id" in (answer?.response ?? {}), false, "the answer has no id");
      assert.equal(answer?.response.error.code, -32000);
      assert.doesNotMatch(JSON.stringify(answer), /evil|3000|4000/);
    });
  }

  test("allow.origins alone leaves Host unchecked, and checks Origin", () => {
    const origins = hostPolicyOption(undefined, ["https://app.example"])!;
    assert.equal(checkHostOrigin(origins, "anything:1", undefined), undefined);
    assert.equal(checkHostOrigin(origins, "anything:1", "https://evil.example")?.reason, "forbidden-origin");
  });

  test("the loopback default allows localhost, 127.0.0.1 and [::1] on any port, and nothing else", () => {
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:9"])
      assert.equal(checkHostOrigin(LOOPBACK_POLICY, host, undefined), undefined, host);
    assert.equal(checkHostOrigin(LOOPBACK_POLICY, "evil.example.com", undefined)?.reason, "forbidden-host");
    assert.equal(checkHostOrigin(LOOPBACK_POLICY, "127.0.0.1:3000", "http://evil.example.com")?.reason, "forbidden-origin");
  });

  test("loopback listen addresses are told from others", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]) assert.equal(isLoopback(host), true, host);
    for (const host of ["0.0.0.0", "::", "192.168.1.2", ""]) assert.equal(isLoopback(host), false, host);
  });

  test("both options unset turn the check off; a bad value throws WymcpOptionError", () => {
    assert.equal(hostPolicyOption(undefined, undefined), undefined);
    assert.throws(() => hostPolicyOption("localhost", undefined), WymcpOptionError);
    assert.throws(() => hostPolicyOption([""], undefined), WymcpOptionError);
    assert.throws(() => hostPolicyOption(undefined, [5]), WymcpOptionError);
  });
});
