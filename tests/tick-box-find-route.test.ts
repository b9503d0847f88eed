import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as findRoute } from "../app/api/exam/templates/[template_id]/tick-boxes/find/route";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest } from "./support/exam-fixtures";
import { uploadPaperFile } from "./support/intake-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken } from "./support/hostile-input";
import { tickBoxPaper, tickPaperArea } from "./support/tick-box-paper";

/**
 * POST /api/exam/templates/{template_id}/tick-boxes/find (and exam.templates.findTickBoxes): the box
 * finder over HTTP, in the imaging worker process, on the template's own paper; nothing is stored.
 */
describeOnEachDatabase("finding a template's tick boxes over HTTP", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let templateId: string;
  let withoutPaperId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const area = { page: tickPaperArea.page, x: tickPaperArea.x, y: tickPaperArea.y, width: tickPaperArea.width, height: tickPaperArea.height };
  const find = (token: string, id: string, body: unknown) =>
    callRest(findRoute, { method: "POST", path: `/api/exam/templates/${id}/tick-boxes/find`, token, body, params: { template_id: id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-tick-find-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "TickFind");
    otherSchool = await createSchool(database().db, "TickFindElsewhere");
    const paper = await tickBoxPaper();
    const fileId = await uploadPaperFile(school.teacher.token, paper.pdf, "science.pdf");
    templateId = (await as(school.teacher).exam.templates.create({ title: "Science 1", page_count: 2, source_file_id: fileId })).id;
    withoutPaperId = (await as(school.teacher).exam.templates.create({ title: "No paper", page_count: 2 })).id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("answers the boxes printed in the rectangle, in reading order, to the owner and to a colleague", async () => {
    const paper = await tickBoxPaper();
    const reply = await find(school.teacher.token, templateId, area);
    expect(reply.status).toBe(200);
    const { boxes } = (await reply.json()) as { boxes: { label: string; shape: string }[] };
    expect(boxes.map((box) => `${box.label}:${box.shape}`)).toEqual(paper.boxes.map((box) => `${box.label}:${box.shape}`));
    // A colleague at the school reads the template, so may look too (tRPC, the same operation).
    const colleague = await as(school.otherTeacher).exam.templates.findTickBoxes({ template_id: templateId, body: area });
    expect(colleague.boxes).toHaveLength(paper.boxes.length);
    // Nothing stored: the template's canvas is as it was.
    expect((await as(school.teacher).exam.templates.get({ template_id: templateId })).response_areas).toEqual([]);
  });

  it("another school's teacher is told the template does not exist; a template without a paper is a 409 with a sentence", async () => {
    const elsewhere = await find(otherSchool.teacher.token, templateId, area);
    expect(elsewhere.status).toBe(404);
    const noPaper = await find(school.teacher.token, withoutPaperId, area);
    expect(noPaper.status).toBe(409);
    expect(await noPaper.json()).toMatchObject({ detail: "This template has no paper PDF to find tick boxes in: add the paper's PDF to the template first" });
  });

  it("refuses a page beyond the paper and a rectangle off the page, naming the field", async () => {
    const beyond = await find(school.teacher.token, templateId, { ...area, page: 3 });
    expect(beyond.status).toBe(400);
    expect(await beyond.json()).toMatchObject({ detail: expect.stringContaining("page 3 is beyond the paper's 2 pages") });
    const off = await find(school.teacher.token, templateId, { ...area, x: 0.9, width: 0.5 });
    expect(off.status).toBe(400);
    expect(await off.json()).toMatchObject({ detail: expect.stringContaining("the rectangle must lie inside the page") });
  });

  it("hostile bodies are refused as the caller's mistake, never a 500", async () => {
    const { seed } = fuzzSettings(30);
    const field = fc.oneof(hostileJsonToken, fc.double(), fc.integer(), fc.constant(null), fc.string());
    await fc.assert(
      fc.asyncProperty(fc.record({ page: field, x: field, y: field, width: field, height: field }, { requiredKeys: [] }), async (body) => {
        const reply = await find(school.teacher.token, templateId, body);
        expect(reply.status, JSON.stringify(body)).toBeLessThan(500);
        if (reply.status !== 200) expect(await reply.json()).toHaveProperty("detail");
      }),
      { seed, numRuns: 30 },
    );
  });
});
