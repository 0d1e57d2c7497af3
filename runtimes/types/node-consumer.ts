/**
 * @module A Node server typed by @types/node: all three entries of the packed package, `req.wymcp` included.
 */
import http from "node:http";
import { classifyEra, type LegacyTypes, type WymcpInfo } from "wymcp";
import { wymcpFetch } from "wymcp/fetch";
import { wymcpNode, type NodeOptions } from "wymcp/node";

const options: NodeOptions = { era: (req, body) => classifyEra(req.headers, body).era };
const guard = wymcpNode(options);
export const fetchGuard = wymcpFetch();

export const server = http.createServer((req, res) => {
  void guard(req, res, () => {
    const info: WymcpInfo | undefined = req.wymcp;
    const init = (req as { body?: unknown }).body as LegacyTypes.InitializeRequest | undefined;
    res.end(JSON.stringify({ era: info?.era, method: init?.method }));
  });
});
