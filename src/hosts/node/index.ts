/** @module hosts/node: wymcp on Node `http`, Connect and Express. */
export { answerClientErrors } from "../shared/node-client-errors.js";
export { type GateNodeListener, type GateNodeOptions, gateNode } from "./gate.js";
export { type NextFunction, type NodeLimitOptions, type NodeOptions, wymcpNode } from "./guard.js";
export { serveFetch } from "./serve.js";
