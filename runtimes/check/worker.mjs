/**
 * @module The matrix's Worker: the wymcpFetch guard inside a real `fetch` handler on workerd; `/core` runs the core
 * checks inside the Worker and answers their results.
 */
import { coreChecks, fetchApp } from "./checks.mjs";

const app = fetchApp();

export default {
  async fetch(request) {
    if (new URL(request.url).pathname === "/core") {
      // Default flags: no nodejs_compat, so none of Node's globals; the row proves it is run that way.
      const bare = {
        name: "core: the Worker has no Buffer and no process",
        ok: typeof Buffer === "undefined" && typeof process === "undefined",
      };
      return Response.json([bare, ...coreChecks()]);
    }
    return app(request);
  },
};
