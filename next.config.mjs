/**
 * MARKBOOK_START_BUILD=1 is set by `npm start` (scripts/start.ts) for the build of a first start, and by
 * the end-to-end tests' build (playwright.config.ts, after `npm test`'s own type-check): that
 * build skips type-checking, which `npm test` does (`npm run typecheck`, with lint), and `npm run build`
 * still does. It was 107 s of a 219 s first build on two cores. (Next 16's build runs no lint.) It
 * writes no Turbopack cache either (about 35 s on two cores): a later start does not build again, so
 * nothing would ever read it.
 */
const startBuild = process.env.MARKBOOK_START_BUILD === "1";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages loaded by Node itself, not bundled: native/WASM ones, and the S3 upload helper (which uses
  // @aws-sdk/client-s3, already external by Next's own list), and exceljs (a CommonJS package with a browser build
  // beside its Node one).
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "neo4j-driver", "@huggingface/transformers", "onnxruntime-node", "@ffmpeg-installer/ffmpeg", "esbuild", "@aws-sdk/lib-storage", "exceljs"],
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: startBuild },
  experimental: { turbopackFileSystemCacheForBuild: !startBuild },
};

export default nextConfig;
