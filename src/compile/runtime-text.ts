/**
 * @module runtime-text: the code every module `wymcp compile` writes carries beside its validators: runtime/index.ts
 * and the core modules it imports, bundled. From the sources it is bundled when this module loads, so it is always the
 * core's current code and nothing generated goes stale; `npm run build` bundles it once and puts the text in this
 * module's place in the bin (scripts/build.ts), so the package runs no bundler.
 */
import { bundleCompileRuntime } from "./runtime-bundle.js";

/** The runtime as one block of a module (runtime-bundle.ts). */
export const COMPILE_RUNTIME: string = await bundleCompileRuntime();
