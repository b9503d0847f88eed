import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { DELETE as undoAbsentRoute, PUT as markAbsentRoute } from "../app/api/exam/submissions/[submission_id]/absence/route";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("marking a student absent", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  let storageRoot: string;

  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const absence = (method: "PUT" | "DELETE", token: string, submissionId: string) =>
    callRest(method === "PUT" ? markAbsentRoute : undoAbsentRoute, { method, token, params: { submission_id: submissionId } });

  async function newBatch(students = 3) {
    const roster = await createClassWithStudents(database().db, school, students);
    const batch = await as(school.teacher).exam.batches.create({ template_id: templateId, class_id: roster.class.id });
    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    const slotOf = (student: { id: string }) => queue.submissions.find((s) => s.student_id === student.id)!;
    return { batch, roster, slotOf };
  }

  async function uploadScan(batchId: string, fields: { name: string; value: string }[]) {
    const form = multipartBody([...fields, { name: "file", filename: "script.pdf", bytes: pdfBytes() }]);
    return scansRoute(
      new Request(`http://localhost/api/exam/batches/${batchId}/scans`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType },
        body: form.body,
      }),
      { params: Promise.resolve({ batch_id: batchId }) },
    );
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Absence");
    otherSchool = await createSchool(database().db, "Elsewhere");
    canvas = sampleCanvas();
    const template = await as(school.teacher).exam.templates.create({ title: "Mock", page_count: 4 });
    templateId = template.id;
    const { questions, response_areas, boundaries } = canvas;
    await as(school.teacher).exam.templates.save({ template_id: templateId, body: { questions, response_areas, boundaries } });
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-absence-"));
    useObjectStorage(createLocalStorage(storageRoot));
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("starts every roster student without a marked absence; Mark absent sets it, Undo clears it, both idempotent", async () => {
    const { batch, roster, slotOf } = await newBatch(2);
    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    expect(queue.submissions.map((s) => [s.status, s.absence_marked_at])).toEqual([
      ["absent", null],
      ["absent", null],
    ]);

    const slot = slotOf(roster.students[0]!);
    const marked = await as(school.teacher).exam.submissions.setAbsence({ submission_id: slot.id, absent: true });
    expect(marked.status).toBe("absent");
    expect(marked.absence_marked_at).toBeInstanceOf(Date);
    const again = await as(school.teacher).exam.submissions.setAbsence({ submission_id: slot.id, absent: true });
    expect(again.absence_marked_at).toEqual(marked.absence_marked_at);

    // A department head may record attendance, as they may enter marks; a colleague who is not a writer of the batch may not.
    await expect(as(school.otherTeacher).exam.submissions.setAbsence({ submission_id: slot.id, absent: false })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringMatching(/^This batch is .+'s: only its owner, its markers or a department head can change its attendance/),
    });
    const undone = await as(school.head).exam.submissions.setAbsence({ submission_id: slot.id, absent: false });
    expect(undone.absence_marked_at).toBeNull();
    expect((await as(school.teacher).exam.submissions.setAbsence({ submission_id: slot.id, absent: false })).absence_marked_at).toBeNull();
  });

  it("REST: PUT marks absent and DELETE undoes; another school, a student and an unknown id get 404", async () => {
    const { roster, slotOf } = await newBatch(1);
    const slot = slotOf(roster.students[0]!);

    const put = await absence("PUT", school.teacher.token, slot.id);
    expect(put.status).toBe(200);
    expect((await put.json()).absence_marked_at).toEqual(expect.any(String));
    const removed = await absence("DELETE", school.teacher.token, slot.id);
    expect(removed.status).toBe(200);
    expect((await removed.json()).absence_marked_at).toBeNull();

    for (const token of [otherSchool.teacher.token, school.student.token]) {
      const refused = await absence("PUT", token, slot.id);
      expect(refused.status).toBe(404);
      expect((await refused.json()).detail).toBe("Submission not found");
    }
    expect((await absence("PUT", school.teacher.token, crypto.randomUUID())).status).toBe(404);
    expect((await absence("DELETE", school.teacher.token, "not-an-id")).status).toBe(404);
    await expect(as(otherSchool.teacher).exam.submissions.setAbsence({ submission_id: slot.id, absent: true })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses with 409 to mark absent a student who has a scan, or marks, or a scan without a student", async () => {
    const { batch, roster, slotOf } = await newBatch(3);
    const scanned = slotOf(roster.students[0]!);
    expect((await uploadScan(batch.id, [{ name: "student_id", value: roster.students[0]!.id }])).status).toBe(200);
    const refused = await absence("PUT", school.teacher.token, scanned.id);
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toBe(`${roster.students[0]!.full_name} has a scan, so they were not absent`);

    const markedOnPaper = slotOf(roster.students[1]!);
    const leaf = canvas.questions.find((q) => !q.is_container)!;
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: markedOnPaper.id, question_id: leaf.id, awarded_marks: 1 } });
    const withMarks = await absence("PUT", school.teacher.token, markedOnPaper.id);
    expect(withMarks.status).toBe(409);
    expect((await withMarks.json()).detail).toMatch(/already has marks/);

    // Every roster slot without a scan or mark taken: the next scan has nobody and stays unmatched.
    await as(school.teacher).exam.submissions.setAbsence({ submission_id: slotOf(roster.students[2]!).id, absent: true });
    const unmatched = await uploadScan(batch.id, [{ name: "matching_method", value: "ordered" }]);
    expect(unmatched.status).toBe(201);
    const stray = await absence("PUT", school.teacher.token, (await unmatched.json()).id);
    expect(stray.status).toBe(409);
    expect((await stray.json()).detail).toMatch(/assign it to a student first/);
  });

  it("ordered matching skips a student marked absent; a scan given to them by hand clears the absence", async () => {
    const { batch, roster, slotOf } = await newBatch(2);
    const [first, second] = roster.students as [(typeof roster.students)[number], (typeof roster.students)[number]];
    await as(school.teacher).exam.submissions.setAbsence({ submission_id: slotOf(first).id, absent: true });

    const ordered = await uploadScan(batch.id, [{ name: "matching_method", value: "ordered" }]);
    expect(ordered.status).toBe(200);
    expect((await ordered.json()).student_id).toBe(second.id);

    const byHand = await uploadScan(batch.id, [{ name: "student_id", value: first.id }]);
    expect(byHand.status).toBe(200);
    expect(await byHand.json()).toMatchObject({ student_id: first.id, status: "matched", absence_marked_at: null });
  });

  it("results and CSV tell a marked absence from no scan yet, and neither counts as 0", async () => {
    const { batch, roster, slotOf } = await newBatch(2);
    await as(school.teacher).exam.submissions.setAbsence({ submission_id: slotOf(roster.students[0]!).id, absent: true });
    const results = await as(school.teacher).exam.batches.results({ batch_id: batch.id });
    expect(results.results.map((r) => [r.student_name, r.absence_marked_at === null, r.total])).toEqual([
      [roster.students[0]!.full_name, false, null],
      [roster.students[1]!.full_name, true, null],
    ]);
    const csv = await (await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).text();
    const rows = csv.trim().split("\r\n").slice(1);
    expect(rows[0]).toBe(`${roster.students[0]!.full_name},${roster.students[0]!.id},Absent,,,,`);
    expect(rows[1]).toBe(`${roster.students[1]!.full_name},${roster.students[1]!.id},No scan yet,,,,`);
  });

  it("an archived batch refuses attendance changes with 409", async () => {
    const { batch, roster, slotOf } = await newBatch(1);
    await as(school.teacher).exam.batches.archive({ batch_id: batch.id });
    const refused = await absence("PUT", school.teacher.token, slotOf(roster.students[0]!).id);
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toMatch(/archived/);
  });
});
