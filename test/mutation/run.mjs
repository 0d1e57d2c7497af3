// @ts-check
/**
 * What Stryker runs for each suite in its sandbox: `node -r <hook> test/mutation/run.mjs test/x.test.ts` loads the
 * `.js` that test/mutation/transpile.mjs wrote beside the suite, under plain Node.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const suite = process.argv[2];
if (!suite?.endsWith(".ts")) throw new Error(`test/mutation/run.mjs: expected a .ts suite, got ${suite}`);
await import(pathToFileURL(resolve(suite.replace(/\.ts$/, ".js"))).href);
