import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "../components/auth/safe-callback";

const ORIGIN = "https://markbook.school.example";

/** Where a browser would go from this site if the value were used as a redirect target. */
const destination = (path: string) => new URL(path, ORIGIN);

describe("safeCallbackPath: where sign-in sends the user next", () => {
  it("keeps a path on this site, and sends anything else to the front door", () => {
    expect(safeCallbackPath("/batches/42/results?x=1#top")).toBe("/batches/42/results?x=1#top");
    expect(safeCallbackPath(`${ORIGIN}/templates/7`, ORIGIN)).toBe("/templates/7");
    for (const hostile of [
      undefined,
      null,
      "",
      "https://evil.example/phish",
      `${ORIGIN}.evil.example/x`,
      "//evil.example/x",
      "/\\evil.example/x",
      "javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "templates",
      "/signin?callbackUrl=/x",
      "/api/exam/templates",
    ]) {
      expect(safeCallbackPath(hostile, ORIGIN)).toBe("/");
    }
    expect(safeCallbackPath(["/classes", "https://evil.example"])).toBe("/classes");
  });

  it("never leads off this site, whatever the value (generated)", () => {
    const hostileish = fc.oneof(
      fc.string(),
      fc.webUrl(),
      fc.webUrl().map((url) => url.replace(/^https?:/, "")),
      fc.tuple(fc.constantFrom("/", "//", "/\\", "\\\\", "/%2F", " /", "\t//"), fc.string()).map(([head, tail]) => head + tail),
      fc.tuple(fc.constantFrom("javascript:", "data:", "vbscript:", "HTTPS://", "http:/"), fc.string()).map(([scheme, rest]) => scheme + rest),
    );
    fc.assert(
      fc.property(hostileish, (value) => {
        const path = safeCallbackPath(value, ORIGIN);
        expect(path.startsWith("/")).toBe(true);
        expect(destination(path).origin).toBe(ORIGIN);
        expect(path.startsWith("/signin")).toBe(false);
        expect(path.startsWith("/api/")).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
