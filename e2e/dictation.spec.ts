import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { chromiumLaunchOptions } from "../playwright.config";
import { screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

/** A clip of speech (16 kHz mono WAV) that Chromium's fake microphone plays, over and over. */
const SPEECH_WAV = path.resolve("tests/fixtures/audio/speech.wav");

test.use({
  launchOptions: {
    ...chromiumLaunchOptions,
    args: [
      ...chromiumLaunchOptions.args,
      "--use-fake-ui-for-media-stream", // the microphone prompt is accepted
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${SPEECH_WAV}`,
    ],
  },
});

type Frame = { type: string; text?: string; segment?: { text: string }; error?: { message: string } };

/** A batch of the teacher's class with one scanned script, made through the REST API. */
async function batchWithOneScript(page: Page): Promise<{ batchId: string; submission: { id: string; student_name: string } }> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; status: string; page_count: number }[] };
  const template = templates.find((t) => t.status === "ready")!;
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title: "Dictation check" } });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
    multipart: { file: { name: "script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count, "Dictation script") }, matching_method: "ordered" },
  });
  expect(uploaded.ok()).toBe(true);
  return { batchId, submission: (await uploaded.json()) as { id: string; student_name: string } };
}

test("a dictated comment shows the speech service's text live, and is saved with the mark", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page);
  const { batchId, submission } = await batchWithOneScript(page);

  // Every message the speech service sends to the page.
  const frames: Frame[] = [];
  const prompts: (string | null)[] = [];
  page.on("websocket", (socket) => {
    if (!new URL(socket.url()).pathname.startsWith("/v1/websocket")) return;
    prompts.push(new URL(socket.url()).searchParams.get("prompt"));
    socket.on("framereceived", ({ payload }) => {
      if (typeof payload === "string") frames.push(JSON.parse(payload) as Frame);
    });
  });
  const said = (type: string) => frames.filter((frame) => frame.type === type);

  await page.goto(`/batches/${batchId}/mark?submission=${submission.id}`);
  await expect(page.getByRole("heading", { level: 1, name: submission.student_name })).toBeVisible();
  const comment = page.getByRole("textbox", { name: /^Comment/ });
  await expect(comment).toHaveValue("");

  await page.getByRole("button", { name: "Dictate comment" }).click();
  const stop = page.getByRole("button", { name: /Stop dictation/ });
  await expect(stop).toBeVisible();
  // Live: the first text the service sends (a partial, or a final) is in the field while listening.
  // The first session loads the model, hence the longer wait.
  // A random-weight model may say a blank piece first: wait for the first that is not.
  const spoken = () => [...said("partial").map((frame) => frame.text), ...said("final").map((frame) => frame.segment?.text)].filter((text) => text?.trim());
  await expect.poll(() => spoken().length, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(comment).not.toHaveValue("");
  expect(said("ready")).toHaveLength(1);
  // The prompt spells the student being marked (last: the engine keeps the end of a long prompt).
  expect(prompts).toHaveLength(1);
  expect(prompts[0]?.endsWith(`Student: ${submission.student_name}.`)).toBe(true);
  await screenshot(page, testInfo, "dictation-listening");

  // Stop: the service sends the last finals, then `closed`; the field holds the finals, nothing else.
  await stop.click();
  await expect.poll(() => said("closed").length, { timeout: 60_000 }).toBe(1);
  expect(said("error")).toEqual([]);
  // At least one final came; its text may be blank: the random-weight model often finalises nothing,
  // and the prompt (the class's names, the scheme) changes what it says. Never assert words.
  expect(said("final").length).toBeGreaterThan(0);
  const finals = said("final")
    .map((frame) => frame.segment!.text.trim())
    .filter(Boolean);
  // A textarea's value has its line breaks normalised to \n.
  const dictated = finals.join(" ").replace(/\r\n?/g, "\n");
  await expect(comment).toHaveValue(dictated);
  await expect(page.getByRole("button", { name: "Dictate comment" })).toBeEnabled();

  // A mark typed from the keyboard; comment and mark are saved together.
  await page.keyboard.type("1");
  await expect(page.getByRole("textbox", { name: /^Mark out of/ })).toHaveValue("1");
  await expect(page.getByRole("status").filter({ hasText: /^Saved$/ })).toBeVisible();
  await screenshot(page, testInfo, "dictation-saved");

  // Another tab has no drafts of its own: what it shows comes from the server.
  const other = await page.context().newPage();
  await other.goto(`/batches/${batchId}/mark?submission=${submission.id}`);
  await expect(other.getByRole("textbox", { name: /^Mark out of/ })).toHaveValue("1");
  await expect(other.getByRole("textbox", { name: /^Comment/ })).toHaveValue(dictated);
  await other.close();
});

test("an error from the speech service is shown, and the comment keeps what was typed", async ({ page }) => {
  await signIn(page);
  const { batchId, submission } = await batchWithOneScript(page);
  // The service's answer when its model cannot be loaded (docs/realtime.md): an error, then close 1011.
  await page.routeWebSocket(/\/v1\/websocket/, async (socket) => {
    socket.send(JSON.stringify({ type: "error", error: { message: "The speech model could not be loaded.", type: "server_error", code: "internal_error", param: null } }));
    await socket.close({ code: 1011, reason: "model unavailable" });
  });
  await page.goto(`/batches/${batchId}/mark?submission=${submission.id}`);
  const comment = page.getByRole("textbox", { name: /^Comment/ });
  await comment.fill("Good start");
  await page.getByRole("button", { name: "Dictate comment" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The speech model could not be loaded." })).toBeVisible();
  await expect(page.getByRole("button", { name: "Dictate comment" })).toBeEnabled();
  await expect(comment).toHaveValue("Good start");
});
