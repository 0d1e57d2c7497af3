/**
 * The page's listener and what reading it costs the face it watches, in this process over the built page: `/rows` in
 * bounded pages after a cursor (rows, bytes, the rows dropped between two pages), judged only as far as a page needs
 * and a slice a turn, so that a proxy in front of a server answers its calls while a large read or a new event stream
 * is under way; the reads in flight bounded in number and bytes, a reader that does not take its answer let go; and a
 * request another site's page made refused before any work.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { parseCheckOptions } from "../src/cli/check/options.js";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { createLog } from "../src/log/gate-log.js";
import { createProxy, listen as listenProxy } from "../src/hosts/proxy/proxy.js";
import { type Listener, type ListenerLimits, listen } from "../src/inspect/listener.js";
import { JUDGE_SLICE_MESSAGES, LiveFeed } from "../src/inspect/live/feed.js";
import { judgeText } from "../src/inspect/page/judge-text.js";
import { RowRing, type RowSource } from "../src/inspect/ring.js";
import type { InspectRow } from "../src/inspect/row.js";
import { assertFreshDist } from "./support/built.js";
import { until } from "./support/proxy.js";

before(assertFreshDist);

const { options } = parseCheckOptions([]);
const ping = (id: number, pad = 0) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: pad ? { _meta: { pad: "p".repeat(pad) } } : undefined });

/** A live feed holding `count` messages captured while no page followed (none judged). */
function heldFeed(count: number, capacity = 10_000, pad = 0): LiveFeed {
  const feed = new LiveFeed("proxy", options, capacity);
  for (let i = 1; i <= count; i++) feed.capture({ entry: i, from: "client", text: ping(i, pad), time: i });
  return feed;
}

/** A ring of `count` judged rows, each carrying `text` (a row's verdict, a text of any size). */
function ringOf(count: number, text: string): RowRing {
  const ring = new RowRing(10_000, 1 << 30);
  const [row] = judgeText(ping(1), "t", { era: "auto" });
  for (let i = 0; i < count; i++) ring.push({ ...row!, text });
  return ring;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A GET with the headers given (a browser's `Sec-Fetch-Site` and `Origin` among them), read whole. */
function get(listener: Listener, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { port } = listener.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      })
      .once("error", reject);
  });
}

interface Page {
  capacity: number;
  first: number;
  dropped: number;
  next: number;
  more: boolean;
  rows: InspectRow[];
}

async function rows(listener: Listener, query = ""): Promise<Page> {
  const answer = await get(listener, `/rows${query}`);
  assert.equal(answer.status, 200, answer.text);
  return JSON.parse(answer.text) as Page;
}

const ids = (page: Page) => page.rows.map((row) => (JSON.parse(row.text!) as { id: number }).id);

async function serve(ring: RowSource, limits: Partial<ListenerLimits> = {}): Promise<Listener> {
  return listen({ ring, host: "127.0.0.1", port: 0, limits });
}

/**
 * A reader that sends `GET path` and reads nothing past the first bytes of the answer; `status` once they came, and the
 * listener's own side of its connection (whose `close` says the reader was let go).
 */
async function unreadReader(listener: Listener, path = "/rows") {
  const { port } = listener.server.address() as AddressInfo;
  const accepted = once(listener.server, "connection") as Promise<[Socket]>;
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  await once(socket, "connect");
  const [serverSide] = await accepted;
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const [first] = (await once(socket, "data")) as [Buffer];
  socket.pause();
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(first.toString("latin1"))![1]), socket, serverSide };
}

/** Resolves once the listener's side of a connection has closed and what its close sets off has run. */
async function closed(serverSide: Socket): Promise<void> {
  // Not events.once: the reset a reader's going makes is an `error` first, which it would reject with.
  if (!serverSide.closed) await new Promise((resolve) => serverSide.once("close", resolve));
  // What the close sets off runs in its own listeners; a turn more for any it leaves to the next.
  await new Promise((resolve) => setImmediate(resolve));
}

describe("/rows: a bounded page after a cursor", () => {
  test("a page holds at most `limit` rows after the cursor, says where to read on and whether more follow", async () => {
    const feed = heldFeed(25);
    const listener = await serve(feed, { pageRows: 10 });
    try {
      const first = await rows(listener);
      assert.deepEqual(ids(first), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.deepEqual([first.first, first.dropped, first.next, first.more], [1, 0, 10, true]);
      const second = await rows(listener, `?after=${first.next}`);
      assert.deepEqual(ids(second), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      const last = await rows(listener, `?after=${second.next}&limit=10`);
      assert.deepEqual([ids(last), last.next, last.more], [[21, 22, 23, 24, 25], 25, false]);
      const caughtUp = await rows(listener, "?after=25");
      assert.deepEqual([caughtUp.rows.length, caughtUp.next, caughtUp.more], [0, 25, false]);
      // A cursor past the newest row reads nothing and points back at the newest.
      const ahead = await rows(listener, "?after=1000");
      assert.deepEqual([ahead.rows.length, ahead.next, ahead.more], [0, 25, false]);
      assert.deepEqual(ids(await rows(listener, "?after=3&limit=2")), [4, 5]);
    } finally {
      await listener.close();
    }
  });

  test("a cursor or a count that is not a whole number in range is a 400, and nothing is read", async () => {
    const feed = heldFeed(5);
    const listener = await serve(feed, { pageRows: 10 });
    try {
      for (const query of [
        "?after=-1",
        "?after=1.5",
        "?after=x",
        `?after=${"9".repeat(17)}`,
        "?limit=0",
        "?limit=11",
        "?limit=",
        "?limit=1e3",
      ])
        assert.equal((await get(listener, `/rows${query}`)).status, 400, query);
      assert.equal(feed.waiting, 5);
    } finally {
      await listener.close();
    }
  });

  test("only what the page needs is judged: the messages after it wait", async () => {
    const feed = heldFeed(2_500);
    const listener = await serve(feed);
    try {
      const page = await rows(listener, "?limit=10");
      assert.deepEqual(ids(page), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.equal(page.more, true);
      // A slice judges JUDGE_SLICE_MESSAGES at most: the page's ten took one.
      assert.ok(feed.waiting >= 2_500 - JUDGE_SLICE_MESSAGES, `${feed.waiting} still wait`);
    } finally {
      await listener.close();
    }
  });

  test("a reader with rows judged after its cursor gets those and has nothing more judged; one at their end has what waits judged", async () => {
    const feed = heldFeed(200);
    const listener = await serve(feed);
    try {
      const first = await rows(listener, "?limit=10");
      const judged = 200 - feed.waiting;
      assert.ok(judged >= 10 && judged < 200, `${judged} judged`);
      // Readers of the oldest rows again: what is judged, however short of a page, and nothing judged for them.
      const again = await rows(listener, "?limit=1000");
      assert.deepEqual([again.rows.length, again.next, again.more], [judged, judged, true]);
      assert.equal(200 - feed.waiting, judged);
      // At the end of what is judged: more is judged, for this page.
      const next = await rows(listener, `?after=${again.next}&limit=1000`);
      assert.equal(next.rows[0]!.seq, judged + 1);
      assert.ok(200 - feed.waiting > judged);
      assert.deepEqual(ids(first), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    } finally {
      await listener.close();
    }
  });

  test("a page holds at most pageBytes of rows, and one row at least whatever its size", async () => {
    const listener = await serve(ringOf(6, "t".repeat(300 * 1024)), { pageBytes: 1024 * 1024 });
    const alone = await serve(ringOf(2, "u".repeat(2 * 1024 * 1024)), { pageBytes: 1024 * 1024 });
    try {
      const page = await rows(listener);
      assert.equal(page.rows.length, 3);
      assert.ok(Buffer.byteLength(JSON.stringify(page.rows)) <= 1024 * 1024);
      assert.deepEqual([page.next, page.more], [3, true]);
      const big = await rows(alone);
      assert.deepEqual([big.rows.length, big.rows[0]!.text!.length, big.next, big.more], [1, 2 * 1024 * 1024, 1, true]);
    } finally {
      await listener.close();
      await alone.close();
    }
  });

  test("rows dropped from the ring between two pages: the answer says how many, and goes on from the oldest held", async () => {
    const feed = heldFeed(10, 10);
    const listener = await serve(feed);
    try {
      const page = await rows(listener, "?limit=4");
      assert.deepEqual([ids(page), page.next], [[1, 2, 3, 4], 4]);
      // Six more messages: the six oldest rows give way, two of them the page had not read.
      for (let i = 11; i <= 16; i++) feed.capture({ entry: i, from: "client", text: ping(i), time: i });
      const next = await rows(listener, `?after=${page.next}&limit=4`);
      assert.deepEqual([next.first, next.dropped, ids(next), next.next, next.more], [7, 2, [7, 8, 9, 10], 10, true]);
      const rest = await rows(listener, `?after=${next.next}`);
      assert.deepEqual([rest.dropped, ids(rest), rest.more], [0, [11, 12, 13, 14, 15, 16], false]);
    } finally {
      await listener.close();
    }
  });
});

describe("judging in slices: the proxy's traffic passes while rows are judged", () => {
  /** A proxy in this process in front of a server that answers every call at once. */
  async function proxyInFront() {
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.once("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    const { port } = upstream.address() as AddressInfo;
    const { options: proxyOptions } = parseProxyArgs(["--upstream", `http://127.0.0.1:${port}/mcp`]);
    const proxy = createProxy(
      proxyOptions,
      createLog("proxy", "text", () => undefined),
    );
    const { server, address } = await listenProxy(proxy, "127.0.0.1", 0);
    const call = async () => {
      const answer = await fetch(`http://127.0.0.1:${address.port}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {} } }),
      });
      await answer.text();
      return answer.status;
    };
    return {
      call,
      close: async () => {
        await proxy.drain(server);
        await new Promise((done) => upstream.close(done));
      },
    };
  }

  // Two thousand messages of 16 KB: a read that needs them all judged takes many slices.
  const FULL = 2_000;
  const PAD = 16 * 1024;

  test("a call through the proxy is answered while a page reads a full ring page after page, its messages judged in slices", async () => {
    const feed = heldFeed(FULL, 10_000, PAD);
    const listener = await serve(feed);
    const proxy = await proxyInFront();
    let pages = 0;
    let done = false;
    const reading = (async () => {
      for (let after = 0, more = true; more; pages++) {
        const page = await rows(listener, `?after=${after}`);
        [after, more] = [page.next, page.more];
      }
      done = true;
    })();
    try {
      // The listener's handler has run by the time this listener of the same event is called.
      await once(listener.server, "request");
      assert.equal(await proxy.call(), 200);
      // The call was answered with messages still waiting to be judged and the page still reading.
      assert.ok(feed.waiting > 0, "the call was answered only once every message was judged");
      assert.equal(done, false);
      await reading;
      assert.equal(feed.waiting, 0);
      // Each read judged 64 Ki characters at most: four messages of 16 KB.
      assert.ok(pages >= FULL / 4, `${pages} pages`);
    } finally {
      await proxy.close();
      await listener.close();
    }
  });

  test("a call through the proxy is answered while a new event stream on a full ring has its messages judged in slices", async () => {
    const feed = heldFeed(FULL, 10_000, PAD);
    const listener = await serve(feed);
    const proxy = await proxyInFront();
    const { port } = listener.server.address() as AddressInfo;
    const stream = http.get({ host: "127.0.0.1", port, path: "/events" }, (res) => res.resume());
    stream.on("error", () => undefined);
    try {
      await once(listener.server, "request");
      assert.equal(await proxy.call(), 200);
      assert.ok(feed.waiting > 0, "the call was answered only once every message was judged");
      // The stream's page has them all, in time.
      await until(() => feed.waiting === 0);
    } finally {
      stream.destroy();
      await proxy.close();
      await listener.close();
    }
  });
});

describe("reads in flight", () => {
  // Forty rows of 512 KB: an answer of all of them is more than the sockets' buffers take from a reader that does not read.
  const big = () => ringOf(40, "z".repeat(512 * 1024));

  test("at most `reads` answers of /rows at once: one more is a 503 until a reader goes", async () => {
    const listener = await serve(big(), { reads: 2, readBytes: 1 << 30, pageBytes: 64 * 1024 * 1024, sendMs: 600_000 });
    const readers: Socket[] = [];
    try {
      const a = await unreadReader(listener);
      const b = await unreadReader(listener);
      readers.push(a.socket, b.socket);
      assert.deepEqual([a.status, b.status], [200, 200]);
      assert.equal((await get(listener, "/rows?limit=1")).status, 503);
      a.socket.destroy();
      await closed(a.serverSide);
      assert.equal((await get(listener, "/rows?limit=1")).status, 200);
    } finally {
      for (const socket of readers) socket.destroy();
      await listener.close();
    }
  });

  test("while the answers in flight hold `readBytes`, a new read is a 503 until a reader goes", async () => {
    const listener = await serve(big(), { reads: 10, readBytes: 1024 * 1024, pageBytes: 64 * 1024 * 1024, sendMs: 600_000 });
    const readers: Socket[] = [];
    try {
      const a = await unreadReader(listener);
      readers.push(a.socket);
      assert.equal(a.status, 200);
      assert.equal((await get(listener, "/rows?limit=1")).status, 503);
      a.socket.destroy();
      await closed(a.serverSide);
      assert.equal((await get(listener, "/rows?limit=1")).status, 200);
    } finally {
      for (const socket of readers) socket.destroy();
      await listener.close();
    }
  });

  test("a reader asking for its next page on the same connection frees its last one's place for it; another connection waits", async () => {
    const listener = await serve(heldFeed(100), { reads: 1, pageRows: 10, sendMs: 600_000 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = listener.server.address() as AddressInfo;
    const read = (after: number) =>
      new Promise<{ status: number; next: number }>((resolve, reject) =>
        http
          .get({ host: "127.0.0.1", port, path: `/rows?after=${after}`, agent }, (res) => {
            let text = "";
            res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
            res.once("end", () =>
              resolve({ status: res.statusCode!, next: res.statusCode === 200 ? (JSON.parse(text) as Page).next : -1 }),
            );
          })
          .once("error", reject),
      );
    const accepted = once(listener.server, "connection") as Promise<[Socket]>;
    try {
      let after = 0;
      for (let page = 0; page < 5; page++) {
        const answer = await read(after);
        assert.equal(answer.status, 200, `page ${page}`);
        after = answer.next;
      }
      assert.ok(after >= 40, `read on to ${after}`);
      // The reader has not gone: its place is held, and another connection's read is refused.
      assert.equal((await get(listener, "/rows")).status, 503);
      // Its one connection carried every page; once it goes, its place is free.
      const [serverSide] = await accepted;
      agent.destroy();
      await closed(serverSide);
      assert.equal((await get(listener, "/rows")).status, 200);
    } finally {
      agent.destroy();
      await listener.close();
    }
  });

  test("a reader that does not take its answer is let go after sendMs, and the listener serves on", async () => {
    const listener = await serve(big(), { reads: 1, pageBytes: 64 * 1024 * 1024, sendMs: 200 });
    let reader: Socket | undefined;
    try {
      const a = await unreadReader(listener);
      reader = a.socket;
      assert.equal(a.status, 200);
      await closed(a.serverSide);
      assert.equal((await get(listener, "/rows?limit=1")).status, 200);
    } finally {
      reader?.destroy();
      await listener.close();
    }
  });
});

describe("requests another site's page made", () => {
  let listener: Listener;
  let feed: LiveFeed;
  let own: string;
  after(() => listener?.close());

  test("are refused (403) before any work: Sec-Fetch-Site cross-site or same-site, an Origin not the listener's own", async () => {
    feed = heldFeed(50);
    listener = await serve(feed);
    own = `127.0.0.1:${(listener.server.address() as AddressInfo).port}`;
    const refused: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" },
      { "sec-fetch-site": "same-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
      // A navigation of another site's page to the rows, not to the page.
      { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
      { origin: "http://attacker.example" },
      { origin: `http://${own}.attacker.example` },
      { origin: `https://${own}` },
      { origin: "null" },
      { "sec-fetch-site": "same-origin", origin: "http://attacker.example" },
    ];
    for (const path of ["/rows", "/events", "/page.css"])
      for (const headers of refused) {
        const answer = await get(listener, path, headers);
        assert.equal(answer.status, 403, `${path} ${JSON.stringify(headers)}`);
      }
    // Nothing was judged, and no stream followed.
    assert.equal(feed.waiting, 50);
  });

  test("the page's own requests pass: same-origin, the user's own navigation (none), its own Origin, or no browser at all", async () => {
    const passed: Record<string, string>[] = [
      { "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" },
      { "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
      { origin: `http://${own}` },
      { origin: `HTTP://${own.toUpperCase()}` },
      {},
    ];
    for (const headers of passed) assert.equal((await get(listener, "/rows?limit=1", headers)).status, 200, JSON.stringify(headers));
  });

  test("a link another site shows to the page itself opens it; the page's files and rows stay refused to that site", async () => {
    const navigate = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
    assert.equal((await get(listener, "/", navigate)).status, 200);
    assert.equal((await get(listener, "/?token=x", navigate)).status, 200);
    assert.equal((await get(listener, "/", { ...navigate, "sec-fetch-dest": "iframe" })).status, 403);
    assert.equal(
      (await get(listener, "/inspect-page.js", { ...navigate, "sec-fetch-dest": "script", "sec-fetch-mode": "no-cors" })).status,
      403,
    );
  });

  test("with a token, another site's request is refused even when it carries the token", async () => {
    const token = "0123456789abcdef0123";
    const guarded = await listen({ ring: heldFeed(3), host: "127.0.0.1", port: 0, token });
    try {
      const bearer = { authorization: `Bearer ${token}` };
      assert.equal((await get(guarded, "/rows", bearer)).status, 200);
      assert.equal((await get(guarded, "/rows", { ...bearer, "sec-fetch-site": "cross-site" })).status, 403);
      assert.equal((await get(guarded, `/events?token=${token}`, { "sec-fetch-site": "cross-site" })).status, 403);
    } finally {
      await guarded.close();
    }
  });
});
