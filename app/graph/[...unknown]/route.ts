import { unknownApiPathRoute } from "@/server/http/unknown-path";

export const dynamic = "force-dynamic";

// Paths no other route file matches: a 404 in the API's `{detail}` dialect, not the web app's HTML page.
export const { GET, POST, PUT, PATCH, DELETE } = unknownApiPathRoute;
