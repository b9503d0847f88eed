import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as filesRoute } from "../app/api/exam/files/route";
import { POST as proposeRoute } from "../app/api/exam/templates/[template_id]/proposal/route";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, multipartBody } from "./support/exam-fixtures";
import { type GeneratedPaper, examPaper, iou } from "./support/exam-papers";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString, hostileWholeBody } from "./support/hostile-input";

/**
 * POST /api/exam/templates/{template_id}/proposal (and exam.templates.propose): the template proposed
 * from its own paper, read in the imaging worker process; the owner's; nothing is stored.
 */
describeOnEachDatabase("proposing a template from its paper", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let paper: GeneratedPaper;
  let templateId: string;
  let withoutPaperId: string;
  let longPaperId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const propose = (token: string, id: string, body?: unknown) =>
    callRest(proposeRoute, { method: "POST", path: "/api/exam/templates/id/proposal", token, body, params: { template_id: id } });

  async function upload(bytes: Uint8Array, name: string): Promise<string> {
    const form = multipartBody([{ name: "file", filename: name, bytes }]);
    const uploaded = await filesRoute(
      new Request("http://localhost/api/exam/files", {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
        body: form.body,
      }),
    );
    expect(uploaded.status).toBe(201);
    return ((await uploaded.json()) as { id: string }).id;
  }

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-proposal-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "Propose");
    otherSchool = await createSchool(database().db, "ProposeElsewhere");
    paper = await examPaper({ seed: 7, layout: "boxed", cover: true, faults: false, minPages: 3 });
    const fileId = await upload(paper.bytes, "paper.pdf");
    templateId = (await as(school.teacher).exam.templates.create({ title: "Chemistry 1", page_count: paper.truth.pageCount, source_file_id: fileId })).id;
    withoutPaperId = (await as(school.teacher).exam.templates.create({ title: "No paper", page_count: 2 })).id;
    // More pages than the reader reads (60): accepted as a paper, refused by the reading with a sentence.
    const long = await PDFDocument.create();
    const font = await long.embedFont(StandardFonts.Helvetica);
    for (let page = 1; page <= 61; page++) long.addPage([595, 842]).drawText(`Page ${page}`, { x: 72, y: 760, size: 12, font });
    const longId = await upload(await long.save(), "long.pdf");
    longPaperId = (await as(school.teacher).exam.templates.create({ title: "Too long", page_count: 61, source_file_id: longId })).id;
  }, 60_000);
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("answers the paper's questions, labels, marks and areas as the canvas holds them, with each item's confidence; nothing is stored", async () => {
    const reply = await propose(school.teacher.token, templateId);
    expect(reply.status).toBe(200);
    const proposal = (await reply.json()) as {
      questions: { id: string; parent_id: string | null; label: string; max_marks: number | null; is_container: boolean }[];
      response_areas: { question_id: string; page: number; x: number; y: number; width: number; height: number }[];
      items: { question_id: string; confidence: string }[];
      name_box: { page: number } | null;
      warnings: { message: string; question_id: string | null }[];
    };
    expect(proposal.questions.map((q) => q.label)).toEqual(paper.truth.questions.map((q) => q.label));
    expect(proposal.questions.map((q) => q.max_marks)).toEqual(paper.truth.questions.map((q) => q.max_marks));
    for (const truth of paper.truth.questions.filter((q) => q.area)) {
      const question = proposal.questions.find((q) => q.label === truth.label)!;
      const area = proposal.response_areas.find((a) => a.question_id === question.id)!;
      expect(area.page, truth.label).toBe(truth.page);
      expect(iou(area, truth.area!), truth.label).toBeGreaterThanOrEqual(0.9);
    }
    expect(proposal.items.map((item) => item.question_id)).toEqual(proposal.questions.map((q) => q.id));
    expect(proposal.name_box?.page).toBe(paper.truth.name_box?.page);
    // The editor saves it as it is: the canvas is one the save accepts (and the template stays empty until then).
    expect((await as(school.teacher).exam.templates.get({ template_id: templateId })).questions).toEqual([]);
    const { items: _items, name_box_confidence: _c, warnings: _w, stated_total: _s, marks_total: _m, scanned_pages: _p, ...canvas } = proposal as unknown as Record<string, unknown>;
    const saved = await as(school.teacher).exam.templates.save({ template_id: templateId, body: canvas });
    expect(saved.questions.map((q) => q.label)).toEqual(paper.truth.questions.map((q) => q.label));
    await as(school.teacher).exam.templates.save({ template_id: templateId, body: { questions: [], response_areas: [], boundaries: [], name_box: null } });
  }, 60_000);

  it("the paper's faults are said as sentences, each naming its question when it has one", async () => {
    const faulty = await examPaper({ seed: 11, layout: "ruled", cover: true, faults: true, fault: "marks-missing" });
    const fileId = await upload(faulty.bytes, "faulty.pdf");
    const id = (await as(school.teacher).exam.templates.create({ title: "Faulty", page_count: faulty.truth.pageCount, source_file_id: fileId })).id;
    const proposal = await as(school.teacher).exam.templates.propose({ template_id: id });
    const missing = faulty.truth.faults.find((fault) => fault.kind === "marks-missing");
    expect(missing).toBeDefined();
    const label = (missing as { label: string }).label;
    const warning = proposal.warnings.find((w) => w.message.startsWith(`Question ${label}: no marks found`));
    expect(warning, JSON.stringify(proposal.warnings)).toBeDefined();
    expect(warning!.question_id).toBe(proposal.questions.find((q) => q.label === label)!.id);
    expect(proposal.items.find((item) => item.question_id === warning!.question_id)?.confidence).toBe("check");
    for (const w of proposal.warnings) expect(w.message.charAt(0)).toBe(w.message.charAt(0).toUpperCase());
  }, 60_000);

  it("another school's user is told the template does not exist; a colleague is refused; no paper, Ready and archived are 409 with a sentence", async () => {
    expect((await propose(otherSchool.teacher.token, templateId)).status).toBe(404);
    expect((await propose(otherSchool.admin.token, templateId)).status).toBe(404);
    const colleague = await propose(school.otherTeacher.token, templateId);
    expect(colleague.status).toBe(403);
    expect(await colleague.json()).toMatchObject({ detail: "Only the template's owner can have its paper read" });
    const noPaper = await propose(school.teacher.token, withoutPaperId);
    expect(noPaper.status).toBe(409);
    expect(await noPaper.json()).toMatchObject({ detail: "This template has no paper PDF to read: add the paper's PDF to the template first" });

    const readyId = (await as(school.teacher).exam.templates.create({ title: "Ready one", page_count: 2 })).id;
    await as(school.teacher).exam.templates.save({ template_id: readyId, body: { status: "ready" } });
    const ready = await propose(school.teacher.token, readyId);
    expect(ready.status).toBe(409);
    expect(((await ready.json()) as { detail: string }).detail).toMatch(/^This template is Ready: .*Set it back to Draft first$/);
    await as(school.teacher).exam.templates.archive({ template_id: readyId });
    const archived = await propose(school.teacher.token, readyId);
    expect(archived.status).toBe(409);
    expect(await archived.json()).toMatchObject({ detail: "This template is archived: restore it before reading its paper" });
  });

  it("a paper longer than the reader reads is refused with a sentence, and so are bytes in storage that are no PDF", async () => {
    const long = await propose(school.teacher.token, longPaperId);
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ detail: "This PDF has more than 60 pages, more than an exam paper may have: upload the paper alone." });

    // The stored object replaced by what no upload would take (a file changed in storage): a 400 with a sentence, not a 500.
    const swapped = (await examPaper({ seed: 3, questions: 2, cover: false })).bytes;
    const fileId = await upload(swapped, "swapped.pdf");
    const id = (await as(school.teacher).exam.templates.create({ title: "Swapped", source_file_id: fileId })).id;
    const stored = fs.readdirSync(storageRoot, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const copies = stored.filter((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)).equals(Buffer.from(swapped)));
    expect(copies).toHaveLength(1);
    fs.writeFileSync(path.join(copies[0]!.parentPath, copies[0]!.name), Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0x41)]));
    const garbage = await propose(school.teacher.token, id);
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { detail: string }).detail).toMatch(/^The file is not a PDF that can be read: .+\./);
  }, 60_000);

  it("hostile template ids and bodies are refused as the caller's mistake, never a 500", async () => {
    const { seed } = fuzzSettings(30);
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileString, fc.uuid()), fc.option(hostileWholeBody, { nil: undefined }), async (id, body) => {
        const reply = await propose(school.teacher.token, id, body);
        expect(reply.status, `${JSON.stringify(id)} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect([400, 404, 413, 415]).toContain(reply.status);
        expect(await reply.json()).toHaveProperty("detail");
      }),
      { seed, numRuns: 30 },
    );
  });
});
