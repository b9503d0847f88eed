/** @type {import('next').NextConfig} */
const nextConfig = {
  // Packages loaded by Node itself, not bundled: native/WASM ones, and the S3 upload helper (which uses
  // @aws-sdk/client-s3, already external by Next's own list), and exceljs (a CommonJS package with a browser build
  // beside its Node one).
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "neo4j-driver", "@huggingface/transformers", "onnxruntime-node", "@ffmpeg-installer/ffmpeg", "esbuild", "@aws-sdk/lib-storage", "exceljs"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
