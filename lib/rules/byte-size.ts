/**
 * A size as people read it: 512 bytes, 340 kB, 12.5 MB, 50 MB (binary units, as file managers show
 * them). The one formatter of sizes for messages and screens alike.
 */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} kB`;
  return `${Number((bytes / 1024 / 1024).toFixed(1))} MB`;
}
