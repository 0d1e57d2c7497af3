/**
 * @module Size of the generated validator modules, raw and gzip, with a minified what-if beside them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export interface SizeFigures {
  file: string;
  raw: number;
  /** zlib level 6 (gzip's default). */
  gzip: number;
  /** What-if only: the same module through esbuild's minifier (not what generated/ ships); null without esbuild. */
  minified: number | null;
  minifiedGzip: number | null;
}

type Minify = (code: string) => string;

/** esbuild comes with tsx, not as a dependency of its own: without it the what-if column stays empty. */
async function minifier(): Promise<Minify | null> {
  try {
    const { transformSync } = await import("esbuild");
    return (code) => transformSync(code, { minify: true, format: "esm", target: "es2022" }).code;
  } catch {
    return null;
  }
}

/** One row per era's `generated/<era>/<module>.js`, then their total ("both eras", or "both eras, <module>"). */
export async function measureSizes(root: string, eras: string[], module = "validators"): Promise<SizeFigures[]> {
  const minify = await minifier();
  // An era's batch framing (legacy: 2025-03-26's) is loaded with its validators, so it counts with them.
  const names = module === "validators" ? ["validators.js", "batch.js"] : [`${module}.js`];
  const files = eras.flatMap((era) => names.map((name) => join("generated", era, name)));
  const rows: SizeFigures[] = files
    .filter((file) => existsSync(join(root, file)))
    .map((file) => {
      const code = readFileSync(join(root, file));
      const min = minify && Buffer.from(minify(code.toString("utf8")));
      return {
        file,
        raw: code.length,
        gzip: gzipSync(code).length,
        minified: min?.length ?? null,
        minifiedGzip: min ? gzipSync(min).length : null,
      };
    });
  const sum = (k: "minified" | "minifiedGzip") => (minify ? rows.reduce((n, r) => n + (r[k] ?? 0), 0) : null);
  const total = (k: "raw" | "gzip") => rows.reduce((n, r) => n + r[k], 0);
  const label = module === "validators" ? "both eras" : `both eras, ${module}`;
  return [...rows, { file: label, raw: total("raw"), gzip: total("gzip"), minified: sum("minified"), minifiedGzip: sum("minifiedGzip") }];
}
