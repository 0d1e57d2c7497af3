/** The import graph of a built module, for the tests that pin what each entry loads (and what it loads lazily). */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

export interface StaticGraph {
  /** Every module a file loads when imported: static imports only, followed through relative paths. */
  files: Set<string>;
  /** The packages those modules import statically. */
  bare: Set<string>;
  /** What they import lazily (`import("...")`), as written. */
  dynamic: Set<string>;
  /** The relative ones of those, as paths. */
  lazy: Set<string>;
}

export function staticGraph(entry: string): StaticGraph {
  const graph: StaticGraph = { files: new Set(), bare: new Set(), dynamic: new Set(), lazy: new Set() };
  const visit = (file: string) => {
    if (graph.files.has(file)) return;
    graph.files.add(file);
    const code = readFileSync(file, "utf8");
    for (const [, from, bareImport] of code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gm)) {
      const specifier = from ?? bareImport;
      if (!specifier) continue;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else graph.bare.add(specifier);
    }
    for (const [, specifier] of code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) {
      graph.dynamic.add(specifier!);
      if (specifier!.startsWith(".")) graph.lazy.add(resolve(dirname(file), specifier!));
    }
  };
  visit(entry);
  return graph;
}
