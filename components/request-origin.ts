import { headers } from "next/headers";

/** The origin the browser used for this request (behind a proxy: its forwarded host and scheme). Server only. */
export async function requestOrigin(): Promise<string> {
  const list = await headers();
  const host = list.get("x-forwarded-host")?.split(",")[0]?.trim() || list.get("host") || "localhost";
  const proto = list.get("x-forwarded-proto")?.split(",")[0]?.trim() || "http";
  return `${proto}://${host}`;
}
