import { describe, expect, it } from "vitest";
import { GET } from "../app/api/openapi.json/route";

/**
 * The served OpenAPI document, held byte for byte (paths, keys and their order) in a file beside the
 * tests: a refactor of how routes are declared (the operation catalogue, server/operation-catalogue.ts) must leave
 * it as it was. A change the contract wants is made on purpose: look at the diff, then `npx vitest run
 * tests/openapi-document.test.ts -u` writes the new document.
 */
describe("GET /api/openapi.json", () => {
  it("is the document held in tests/fixtures/openapi/openapi.json, key for key and in the same order", async () => {
    const served = await GET().text();
    // Indented only so that a change reads as a diff; the key order is the served one.
    await expect(`${JSON.stringify(JSON.parse(served), null, 2)}\n`).toMatchFileSnapshot("./fixtures/openapi/openapi.json");
  });
});
