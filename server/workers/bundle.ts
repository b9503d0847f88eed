import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildSync } from "esbuild";
import { logger } from "../logger";

/**
 * A worker thread's entry point, as plain JavaScript. Registering tsx's loader inside a worker starts
 * a loader thread of its own and costs about 150 MB of memory (measured: a worker importing
 * transformers.js grows the process by 45 MB, by 200 MB through tsx). So a worker's TypeScript is
 * bundled once per process with esbuild, packages left external, into node_modules/.cache, from where
 * its imports resolve as the app's own. The file is named by its content and written atomically, so
 * processes starting side by side (test workers) never read a half-written one.
 *
 * `source` is the worker's TypeScript file; `fallback` a small .mjs beside it that registers tsx and
 * imports it, used when bundling is not possible.
 */
export function bundledWorkerEntry(name: string, source: string, fallback: URL): URL {
  const known = entries.get(source);
  if (known) return known;
  let entry: URL;
  try {
    const built = buildSync({
      entryPoints: [source],
      bundle: true,
      packages: "external",
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
      logLevel: "silent",
    }).outputFiles[0]!.contents;
    const folder = path.join(projectRoot(source), "node_modules", ".cache", "markbook");
    const file = path.join(folder, `${name}-${crypto.createHash("sha256").update(built).digest("hex").slice(0, 16)}.mjs`);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(folder, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      fs.writeFileSync(partial, built);
      fs.renameSync(partial, file);
    }
    entry = pathToFileURL(file);
  } catch (error) {
    logger.warn(`${name}: bundling failed (${(error as Error).message}); running it through tsx, which uses more memory`);
    entry = fallback;
  }
  entries.set(source, entry);
  return entry;
}

const entries = new Map<string, URL>();

/** The folder holding package.json above a source file. */
function projectRoot(source: string): string {
  let folder = path.dirname(source);
  while (!fs.existsSync(path.join(folder, "package.json"))) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`no package.json above ${source}`);
    folder = parent;
  }
  return folder;
}
