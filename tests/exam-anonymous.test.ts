/**
 * Anonymous marking (issue 19): in an anonymous batch no student's name or id reaches a staff member
 * through any read of the batch or its submissions, REST or tRPC, the owner's included, unless the
 * owner asks to reveal them on the results (or the CSV). The students get names no reply could hold
 * by chance, so a search of every serialized reply for them means something; the same reads of the
 * same batch before it turns anonymous, and the owner's reveal, do hold them.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { GET as exportCsvRoute } from "../app/api/exam/batches/[batch_id]/export/csv/route";
import { GET as exportXlsxRoute } from "../app/api/exam/batches/[batch_id]/export/xlsx/route";
import { GET as intakeRoute } from "../app/api/exam/batches/[batch_id]/intake/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as resultsRoute } from "../app/api/exam/batches/[batch_id]/results/route";
import { GET as scanPagesRoute } from "../app/api/exam/batches/[batch_id]/scan-pages/route";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { GET as listBatchesRoute } from "../app/api/exam/batches/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { GET as pageImageRoute } from "../app/api/exam/scan-pages/[page_id]/image/route";
import { DELETE as undoAbsentRoute, PUT as markAbsentRoute } from "../app/api/exam/submissions/[submission_id]/absence/route";
import { GET as nameCropRoute } from "../app/api/exam/submissions/[submission_id]/name-crop/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { asService } from "../server/db/rls";
import { examSubmissions, users } from "../server/db/schema";
import { createTemplate } from "../server/exam/templates";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { processScanPile } from "../server/exam/intake/pile-job";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken } from "./support/hostile-input";
import { imagingDouble, testPile } from "./support/intake-imaging-double";
import { pagesOfPile, postPile, printedBatch } from "./support/intake-fixtures";
import { timeoutFor } from "./support/busy-machine";

/** Names nothing else in a reply could spell, each with the run's tag. */
const DISTINCT_NAMES = ["Wilhelmina Quarrington", "Bartholomew Ffolkes-Xu", "Persephone Vandersloot", "Ignatius Obafemi-Lindqvist"];
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]);

describeOnEachDatabase("anonymous marking", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  let storageRoot: string;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-anonymous-"));
    useObjectStorage(createLocalStorage(storageRoot));
    // The stand-in imaging files pages by their codes; its name crop is a tiny JPEG, so the route answers.
    setIntakeImaging({ ...imagingDouble(), nameBoxCrop: () => Promise.resolve(JPEG) });
    school = await createSchool(db(), "Anonymous");
    otherSchool = await createSchool(db(), "Elsewhere");
    templateId = (await createTemplate(db(), school.teacher.id, { title: "Mock", page_count: 3 })).id;
    canvas = sampleCanvas();
    const saved = await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: { ...canvas, title: "Mock", page_count: 3 }, params: { template_id: templateId } });
    expect(saved.status).toBe(200);
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /**
   * A printed batch of four students with distinctive names, as marking leaves it half-way: script 1
   * scanned whole and marked, script 2 missing its first page, a spare copy's page still to identify,
   * student 3 marked absent, student 4 with a scan uploaded on its own. Anonymous marking is turned on
   * by the owner over REST once `anonymous` says so (the positive control reads it before).
   */
  async function halfMarkedBatch() {
    const printed = await printedBatch(db(), school, templateId, { students: 4, spares: 1 });
    const tag = crypto.randomBytes(3).toString("hex");
    const names = DISTINCT_NAMES.map((name) => `${name} ${tag}`);
    await asService(db(), async (tx) => {
      for (const [index, slot] of printed.slots.entries()) {
        await tx.update(users).set({ full_name: names[index]! }).where(eq(users.id, slot.student_id!));
        await tx.update(examSubmissions).set({ student_name: names[index]! }).where(eq(examSubmissions.id, slot.id));
      }
    });
    const pile = await postPile(
      school.teacher.token,
      printed.batch.id,
      await testPile([
        { label: "s1p1", code: printed.code(1, 1) },
        { label: "s1p2", code: printed.code(1, 2) },
        { label: "s2p2", code: printed.code(2, 2) },
        { label: "s5p1", code: printed.code(5, 1) },
      ]),
    );
    expect(pile.status).toBe(202);
    const pileId = ((await pile.json()) as { id: string }).id;
    await processScanPile(db(), pileId, imagingDouble());
    const [first, second, third, fourth] = printed.slots;
    const upload = multipartBody([
      { name: "student_id", value: fourth!.student_id! },
      { name: "file", filename: "scan.pdf", bytes: pdfBytes() },
    ]);
    const uploaded = await scansRoute(
      new Request(`http://localhost/api/exam/batches/${printed.batch.id}/scans`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": upload.contentType },
        body: upload.body,
      }),
      { params: Promise.resolve({ batch_id: printed.batch.id }) },
    );
    expect(uploaded.status).toBe(200);
    await as(school.head).exam.submissions.setAbsence({ submission_id: third!.id, absent: true });
    for (const [question, awarded] of [
      [canvas.ids.q1a, 3],
      [canvas.ids.q1b, 1],
    ] as const) {
      await as(school.head).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: first!.id, question_id: question, awarded_marks: awarded, confirmed: true } });
    }
    const rows = await asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, printed.batch.id)));
    const spare = rows.find((row) => row.student_id === null)!;
    const studentIds = printed.slots.map((slot) => slot.student_id!);
    return { batch: printed.batch, names, studentIds, slots: { first: first!, second: second!, third: third!, fourth: fourth! }, spare, rows, pileId };
  }

  type Fixture = Awaited<ReturnType<typeof halfMarkedBatch>>;
  const rest = (route: typeof queueRoute, token: string, params: Record<string, string>, query = "") => callRest(route, { token, params, path: `/${query}` });

  /**
   * Every read of the batch and its submissions that a staff member can make, with each reply's
   * status and text: REST (JSON, CSV, and the files as bytes read as text) and tRPC (serialized).
   */
  async function everyRead(user: School["teacher"], fixture: Fixture): Promise<{ what: string; status: number; text: string }[]> {
    const { batch, rows } = fixture;
    const batchParams = { batch_id: batch.id };
    const replies: { what: string; status: number; text: string }[] = [];
    const keepRest = async (what: string, response: Promise<Response>) => {
      const answer = await response;
      replies.push({ what: `REST ${what}`, status: answer.status, text: Buffer.from(await answer.arrayBuffer()).toString("latin1") });
    };
    const keepTrpc = async (what: string, call: Promise<unknown>) => {
      try {
        replies.push({ what: `tRPC ${what}`, status: 200, text: JSON.stringify(await call) });
      } catch (error) {
        replies.push({ what: `tRPC ${what}`, status: 0, text: JSON.stringify({ message: (error as Error).message, error }) });
      }
    };
    await keepRest("GET /batches", rest(listBatchesRoute, user.token, {}));
    await keepRest("GET queue", rest(queueRoute, user.token, batchParams));
    await keepRest("GET results", rest(resultsRoute, user.token, batchParams));
    await keepRest("GET csv", rest(csvRoute, user.token, batchParams));
    await keepRest("GET csv?name=title", rest(csvRoute, user.token, batchParams, "?name=title"));
    await keepRest("GET export/csv", rest(exportCsvRoute, user.token, batchParams));
    // The workbook is zipped: its cells are what is searched.
    const workbookReply = await rest(exportXlsxRoute, user.token, batchParams);
    const workbook = new ExcelJS.Workbook();
    if (workbookReply.ok) await workbook.xlsx.load(await workbookReply.arrayBuffer());
    const cells: string[] = [];
    workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => void cells.push(cell.text))));
    replies.push({ what: "REST GET export/xlsx", status: workbookReply.status, text: cells.join("\n") });
    await keepRest("GET intake", rest(intakeRoute, user.token, batchParams));
    await keepRest("GET scan-pages", rest(scanPagesRoute, user.token, batchParams));
    for (const row of rows) {
      await keepRest(`GET scan of ${row.id}`, rest(scanRoute, user.token, { submission_id: row.id }));
      await keepRest(`GET name-crop of ${row.id}`, rest(nameCropRoute, user.token, { submission_id: row.id }));
    }
    for (const page of await pagesOfPile(db(), fixture.pileId)) {
      await keepRest(`GET image of page ${page.pile_page}`, rest(pageImageRoute, user.token, { page_id: page.id }));
    }
    const caller = as(user);
    await keepTrpc("exam.batches.list", caller.exam.batches.list({ include_archived: true }));
    await keepTrpc("exam.batches.overview", caller.exam.batches.overview({ include_archived: true }));
    await keepTrpc("exam.batches.queue", caller.exam.batches.queue(batchParams));
    await keepTrpc("exam.batches.results", caller.exam.batches.results(batchParams));
    await keepTrpc("exam.intake.status", caller.exam.intake.status(batchParams));
    await keepTrpc("exam.intake.pages", caller.exam.intake.pages(batchParams));
    await keepTrpc("exam.intake.printPreview", caller.exam.intake.printPreview(batchParams));
    for (const row of rows) await keepTrpc(`exam.marks.forSubmission ${row.id}`, caller.exam.marks.forSubmission({ submission_id: row.id }));
    // The writes a writer of the batch may make answer with the submission, or refuse naming it (a colleague is refused naming the owner).
    const { first, third, fourth } = fixture.slots;
    await keepTrpc("exam.submissions.setAbsence (undo)", caller.exam.submissions.setAbsence({ submission_id: third.id, absent: false }));
    await keepTrpc("exam.submissions.setAbsence", caller.exam.submissions.setAbsence({ submission_id: third.id, absent: true }));
    await keepTrpc("exam.submissions.setAbsence (has a scan)", caller.exam.submissions.setAbsence({ submission_id: fourth.id, absent: true }));
    await keepRest("DELETE absence", callRest(undoAbsentRoute, { method: "DELETE", token: user.token, params: { submission_id: third.id } }));
    await keepRest("PUT absence", callRest(markAbsentRoute, { method: "PUT", token: user.token, params: { submission_id: third.id } }));
    await keepRest("PUT absence (has a scan)", callRest(markAbsentRoute, { method: "PUT", token: user.token, params: { submission_id: first.id } }));
    const mark = { submission_id: fourth.id, question_id: canvas.ids.q2, awarded_marks: 4, confirmed: true };
    await keepTrpc("exam.marks.upsert", caller.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: mark }));
    await keepRest("PUT mark", callRest(markRoute, { method: "PUT", token: user.token, body: mark, params: { mark_id: crypto.randomUUID() } }));
    return replies;
  }

  /** The replies that hold a student's name or id (surnames alone count), as "what: what it held". */
  function leaks(replies: { what: string; text: string }[], fixture: Fixture): string[] {
    const secrets = [...fixture.names, ...fixture.names.map((name) => name.split(" ")[1]!), ...fixture.studentIds];
    return replies.flatMap(({ what, text }) => secrets.filter((secret) => text.toLowerCase().includes(secret.toLowerCase())).map((secret) => `${what}: ${secret}`));
  }

  it("shows no student's name or id to a colleague or to the owner, in any read of an anonymous batch", async () => {
    const fixture = await halfMarkedBatch();
    // The control: the same reads of the batch while it is not anonymous hold every name.
    const before = await everyRead(school.otherTeacher, fixture);
    for (const name of fixture.names) expect(before.some((reply) => reply.text.includes(name)), name).toBe(true);

    const turnedOn = await callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous: true }, params: { batch_id: fixture.batch.id } });
    expect(turnedOn.status).toBe(200);
    expect(await turnedOn.json()).toMatchObject({ id: fixture.batch.id, anonymous: true });

    for (const user of [school.otherTeacher, school.teacher]) {
      const replies = await everyRead(user, fixture);
      expect(leaks(replies, fixture)).toEqual([]);
      expect(replies.filter((reply) => reply.status >= 500).map((reply) => reply.what)).toEqual([]);
      const byWhat = new Map(replies.map((reply) => [reply.what.replace(/ [0-9a-f-]{36}$/, ""), reply]));
      // Scripts are named by number, and the refusal that would name a student names the script.
      expect(byWhat.get("REST GET csv")!.text).toContain(`Script ${fixture.slots.first.script_number}`);
      // A colleague who is not a writer of the batch is refused before that, naming the owner only.
      const refusal = (script: number) => (user === school.teacher ? `Script ${script} has a scan` : `This batch is ${school.teacher.full_name}'s`);
      expect(byWhat.get("tRPC exam.submissions.setAbsence (has a scan)")!.text).toContain(refusal(fixture.slots.fourth.script_number));
      expect(byWhat.get("REST PUT absence (has a scan)")!.text).toContain(refusal(fixture.slots.first.script_number));
    }

    // The name crop is the owner's alone (they identify the scripts): a colleague is refused.
    const crop = (user: School["teacher"]) => rest(nameCropRoute, user.token, { submission_id: fixture.spare.id });
    expect((await crop(school.otherTeacher)).status).toBe(403);
    const ownCrop = await crop(school.teacher);
    expect(ownCrop.status).toBe(200);
    expect(ownCrop.headers.get("content-type")).toBe("image/jpeg");
    // The headers the crop always sent (its REST face, exam.intake.nameCrop, says them in `respond`).
    const cropBytes = await ownCrop.clone().arrayBuffer();
    expect(ownCrop.headers.get("content-length")).toBe(String(cropBytes.byteLength));
    expect(ownCrop.headers.get("cache-control")).toBe("private, max-age=60");
    expect(ownCrop.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await crop(otherSchool.teacher)).status).toBe(404);
  }, timeoutFor(8)); // every REST and tRPC read, both exports read back: about 8 s of work alone

  it("names every submission by its script number, in script order, and keeps whether it has a student", async () => {
    const fixture = await halfMarkedBatch();
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: fixture.batch.id, anonymous: true });
    const queue = await as(school.otherTeacher).exam.batches.queue({ batch_id: fixture.batch.id });
    const numbers = queue.submissions.map((submission) => submission.script_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(queue.submissions.every((submission) => submission.student_name === null && submission.student_id === null)).toBe(true);
    expect(queue.submissions.filter((submission) => !submission.has_student).map((submission) => submission.id)).toEqual([fixture.spare.id]);
    const results = await as(school.teacher).exam.batches.results({ batch_id: fixture.batch.id });
    expect(results.names).toBe("hidden");
    const first = results.results.find((row) => row.submission_id === fixture.slots.first.id)!;
    expect(first).toMatchObject({ student_name: null, student_id: null, has_student: true, script_number: fixture.slots.first.script_number, total: 4 });
    const overview = await as(school.otherTeacher).exam.batches.overview({});
    // The states still tell a script to identify from the students' scripts.
    expect(overview.batches.find((batch) => batch.id === fixture.batch.id)!.states).toMatchObject({ needs_student: 1, absent: 1, marked: 0 });
  });

  it("reveals the names on the results and the CSV to the owner who asks, and refuses anyone else who asks", async () => {
    const fixture = await halfMarkedBatch();
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: fixture.batch.id, anonymous: true });
    const params = { batch_id: fixture.batch.id };

    const revealed = await as(school.teacher).exam.batches.results({ ...params, reveal_names: true });
    expect(revealed.names).toBe("shown");
    expect(revealed.results.map((row) => row.student_name).filter(Boolean).sort()).toEqual([...fixture.names].sort());
    const revealedRest = await rest(resultsRoute, school.teacher.token, params, "?reveal_names=true");
    expect(revealedRest.status).toBe(200);
    expect(((await revealedRest.json()) as { results: { student_id: string | null }[] }).results.map((row) => row.student_id).filter(Boolean).sort()).toEqual(
      [...fixture.studentIds].sort(),
    );
    const csv = await (await rest(csvRoute, school.teacher.token, params, "?reveal_names=true")).text();
    for (const name of fixture.names) expect(csv).toContain(name);

    const exported = await (await rest(exportCsvRoute, school.teacher.token, params, "?reveal_names=true")).text();
    for (const name of fixture.names) expect(exported).toContain(name.split(" ")[1]);

    await expect(as(school.otherTeacher).exam.batches.results({ ...params, reveal_names: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    for (const route of [resultsRoute, csvRoute, exportCsvRoute, exportXlsxRoute]) {
      const refused = await rest(route, school.otherTeacher.token, params, "?reveal_names=true");
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/owner/);
      expect((await rest(route, school.admin.token, params, "?reveal_names=yes")).status).toBe(403);
      expect((await rest(route, otherSchool.teacher.token, params, "?reveal_names=true")).status).toBe(404);
      expect((await rest(route, school.student.token, params, "?reveal_names=true")).status).toBe(404);
    }
    // An ordinary batch shows its names to everyone, asked or not.
    await as(school.teacher).exam.batches.setAnonymous({ ...params, anonymous: false });
    const plain = await as(school.otherTeacher).exam.batches.results({ ...params, reveal_names: true });
    expect(plain.names).toBe("shown");
    expect(plain.results.filter((row) => row.student_name !== null)).toHaveLength(4);
  });

  describe("turning it on and off", () => {
    const patch = (token: string, batchId: string, body: unknown) => callRest(patchBatchRoute, { method: "PATCH", token, body, params: { batch_id: batchId } });

    it("is set at creation, and changed by the owner only", async () => {
      const created = await as(school.teacher).exam.batches.create({ template_id: templateId, title: "Blind", anonymous: true });
      expect(created).toMatchObject({ anonymous: true });
      expect((await as(school.teacher).exam.batches.create({ template_id: templateId })).anonymous).toBe(false);

      const off = await patch(school.teacher.token, created.id, { anonymous: false });
      expect(off.status).toBe(200);
      expect(await off.json()).toMatchObject({ id: created.id, anonymous: false });
      // Idempotent.
      expect((await as(school.teacher).exam.batches.setAnonymous({ batch_id: created.id, anonymous: false })).anonymous).toBe(false);

      const colleague = await patch(school.otherTeacher.token, created.id, { anonymous: true });
      expect(colleague.status).toBe(403);
      expect(((await colleague.json()) as { detail: string }).detail).toBe(`This batch is ${school.teacher.full_name}'s: only its owner can change its settings; ask ${school.teacher.full_name} if you should`);
      await expect(as(school.admin).exam.batches.setAnonymous({ batch_id: created.id, anonymous: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
      expect((await patch(otherSchool.teacher.token, created.id, { anonymous: true })).status).toBe(404);
      await expect(as(otherSchool.admin).exam.batches.setAnonymous({ batch_id: created.id, anonymous: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await patch(school.student.token, created.id, { anonymous: true })).status).toBe(404);
      expect((await patch(school.teacher.token, crypto.randomUUID(), { anonymous: true })).status).toBe(404);
      expect((await as(school.teacher).exam.batches.queue({ batch_id: created.id })).batch.anonymous).toBe(false);
    });

    it("refuses an archived batch with 409", async () => {
      const created = await as(school.teacher).exam.batches.create({ template_id: templateId });
      await as(school.teacher).exam.batches.archive({ batch_id: created.id });
      const refused = await patch(school.teacher.token, created.id, { anonymous: true });
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/archived/);
    });

    it("answers hostile bodies with 400 and leaves the setting as it was", async () => {
      const created = await as(school.teacher).exam.batches.create({ template_id: templateId });
      for (const body of ["", "[]", "null", '{"anonymous":"true"}', '{"anonymous":1}', '{"anonymous":null}', "{}", '{"anonymous":tru']) {
        const refused = await patch(school.teacher.token, created.id, body);
        expect(refused.status, body).toBe(400);
        expect(typeof ((await refused.json()) as { detail: unknown }).detail).toBe("string");
      }
      const { seed } = fuzzSettings(40);
      let expected = false;
      await fc.assert(
        fc.asyncProperty(hostileJsonToken, async (token) => {
          const response = await patch(school.teacher.token, created.id, `{"anonymous":${token}}`);
          if (token === "true" || token === "false") {
            expect(response.status).toBe(200);
            expected = token === "true";
          } else {
            expect(response.status).toBe(400);
            expect(typeof ((await response.json()) as { detail: unknown }).detail).toBe("string");
          }
        }),
        { seed, numRuns: 40 },
      );
      expect((await as(school.teacher).exam.batches.queue({ batch_id: created.id })).batch.anonymous).toBe(expected);
    });
  });
});
