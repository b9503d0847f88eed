/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native/WASM packages that must be loaded by Node itself, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "neo4j-driver"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
