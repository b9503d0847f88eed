import crypto from "node:crypto";
import fs from "node:fs";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { signIn } from "./helpers";

/** A one-page template of the signed-in teacher saved through the REST API (the session cookie signs it). */
async function savedTemplate(request: APIRequestContext, title: string, canvas: { questions: object[]; response_areas: object[] }) {
  const created = await request.post("/api/exam/templates", { data: { title, page_count: 1 } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const saved = await request.put(`/api/exam/templates/${id}`, { data: { ...canvas, boundaries: [] } });
  expect(saved.status()).toBe(200);
  return id;
}

test("the owner sees a failed graph update on the template page, with the reason and Retry now", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  const tag = Date.now().toString(36);
  // Template A's question X is in the school's curriculum graph.
  const clashId = crypto.randomUUID();
  const first = await savedTemplate(page.request, `Graph fine ${tag}`, { questions: [{ id: clashId, label: "1", order: 1 }], response_areas: [] });
  expect((await page.request.post(`/api/exam/templates/${first}/graph-sync`)).status()).toBe(200);
  // Template B has a response area whose id is X: the graph refuses a region node over A's question,
  // so B's background projection fails and is retried with backoff (A may yet free the id).
  const questionId = crypto.randomUUID();
  const second = await savedTemplate(page.request, `Graph refused ${tag}`, {
    questions: [{ id: questionId, label: "1", order: 1 }],
    response_areas: [{ id: clashId, question_id: questionId, page: 1, x: 0.1, y: 0.1, width: 0.5, height: 0.2 }],
  });

  await page.goto(`/templates/${second}`);
  const notice = page.getByTestId("graph-projection-problem");
  // The job runs within a poll of the server's worker; the page looks again every few seconds meanwhile.
  // The reason says what to change: the area's id is already a question's.
  await expect(notice).toContainText(
    `The curriculum graph could not be updated: Response area ${clashId} has the id of a question in the school's curriculum graph: give it a new id.`,
    { timeout: 30_000 },
  );
  await expect(notice).toContainText("Markbook retries automatically; next try at");
  fs.mkdirSync("test-results/screenshots", { recursive: true });
  const path = "test-results/screenshots/template-graph-failed.png";
  await page.screenshot({ path });
  await testInfo.attach("template-graph-failed", { path, contentType: "image/png" });

  await page.getByRole("button", { name: "Retry now" }).click();
  await expect(page.getByRole("button", { name: "Retry now" })).toBeEnabled();
  await expect(notice).toContainText("Markbook retries automatically; next try at");

  // Template A's page shows nothing: its graph is fine.
  await page.goto(`/templates/${first}`);
  await expect(page.getByRole("button", { name: "Update curriculum links" })).toBeVisible();
  await expect(page.getByTestId("graph-projection-problem")).toHaveCount(0);
});
