/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native/WASM packages that must be loaded by Node itself, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "neo4j-driver", "@huggingface/transformers", "onnxruntime-node", "@ffmpeg-installer/ffmpeg", "esbuild"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
