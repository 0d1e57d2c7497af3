/**
 * @module bench/bundled: a bench module run as the package ships, not as tsx runs it. tsx transforms with esbuild's
 * `keepNames`, which names every function it makes with `Object.defineProperty` (`__name`): on Node 20 each closure made
 * per call then costs about 0.3 µs (a Node face's exchange makes three per request, about 0.9 µs of a 3 µs admission)
 * that `npm run build` (no `keepNames`) never pays. So a bench timing code that makes closures per request imports a
 * bundle made as dist/ is made: esbuild, ES2022, packages left to node_modules.
 */
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * `entry` (a path relative to the repository) bundled into `.bench-build/` at the repository's root (one level down, so that
 * what finds the repository from its own file, two levels up, still does), and imported.
 */
export async function importBundled<M>(root: string, entry: string): Promise<M> {
  return (await import(pathToFileURL(await bundle(root, entry)).href)) as M;
}

/** `entry` bundled as `importBundled` bundles it, for a child process to import: the bundle's path. */
export async function bundle(root: string, entry: string): Promise<string> {
  const outfile = join(root, ".bench-build", basename(entry).replace(/\.ts$/, ".mjs"));
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "es2022",
    packages: "external",
    logLevel: "warning",
  });
  return outfile;
}
