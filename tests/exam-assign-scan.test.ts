import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as assignRoute } from "../app/api/exam/submissions/[submission_id]/assign/route";
import { GET as scanFileRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { GET as openApiRoute } from "../app/api/openapi.json/route";
import { asService, asUser } from "../server/db/rls";
import { examMarkEntries, examSubmissions } from "../server/db/schema";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, pdfBytes, sampleCanvas, uploadScan } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("assigning an unmatched scan to a student", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  let storageRoot: string;

  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  /** A batch of the teacher's for a new class of `students` students, and its roster slots by student. */
  async function newBatch(students = 3) {
    const roster = await createClassWithStudents(database().db, school, students);
    const batch = await as(school.teacher).exam.batches.create({ template_id: templateId, class_id: roster.class.id });
    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    const slotOf = (student: { id: string }) => queue.submissions.find((s) => s.student_id === student.id)!;
    return { batch, roster, slotOf };
  }

  /** Uploads a scan without a student through the REST path: it becomes an unmatched submission (201). */
  async function unmatchedScan(batchId: string, who = "script") {
    const response = await uploadScan(school.teacher.token, batchId, pdfBytes(), [], `${who}.pdf`);
    expect(response.status).toBe(201);
    const submission = await response.json();
    expect(submission).toMatchObject({ status: "unmatched", student_id: null });
    return submission as { id: string; scan_url: string };
  }

  const mark = (user: { id: string }, submissionId: string, questionId: string, awarded: number, confirmed = true) =>
    as(user).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed } });

  const rowsOf = (batchId: string) =>
    asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batchId)));
  const marksOn = (submissionId: string) =>
    asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, submissionId)));
  const assignOverRest = (token: string | undefined, submissionId: string, body: unknown) =>
    callRest(assignRoute, { method: "POST", token, body, params: { submission_id: submissionId } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-assign-"));
    useObjectStorage(createLocalStorage(storageRoot));
    school = await createSchool(database().db, "Assign");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await as(school.teacher).exam.templates.create({ title: "Mock", page_count: 3 });
    templateId = template.id;
    canvas = sampleCanvas();
    await as(school.teacher).exam.templates.save({ template_id: templateId, body: { ...canvas, status: "ready" } });
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("moves the scan to the student's submission, deletes the unmatched row, and the student's row reads as matched", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const slot = slotOf(roster.students[1]!);

    const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: roster.students[1]!.id });
    expect(assigned).toMatchObject({
      id: slot.id,
      student_id: roster.students[1]!.id,
      student_name: slot.student_name,
      status: "matched",
      scan_url: scan.scan_url,
      matching_method: "manual",
    });

    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    expect(queue.submissions).toHaveLength(3);
    expect(queue.submissions.map((s) => s.id)).not.toContain(scan.id);
    expect(queue.submissions.filter((s) => s.scan_url !== null).map((s) => s.id)).toEqual([slot.id]);
    expect(queue.progress).toMatchObject({ total: 3, absent: 2, in_progress: 1 });
    // The stored file went with it: the student's submission serves the scan's bytes.
    const file = await scanFileRoute(new Request("http://localhost/x", { headers: { authorization: `Bearer ${school.teacher.token}` } }), {
      params: Promise.resolve({ submission_id: slot.id }),
    });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString()).toBe("%PDF-");
    // The scan is gone: assigning it again is a 404.
    await expect(as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: roster.students[2]!.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("moves the marks with the scan, keeping who gave them, and recomputes the status", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const byColleague = await mark(school.head, scan.id, canvas.ids.q1a, 2);
    const byOwner = await mark(school.teacher, scan.id, canvas.ids.q2, 4, false);
    expect((await rowsOf(batch.id)).find((r) => r.id === scan.id)!.status).toBe("marking");

    const student = roster.students[0]!;
    const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: student.id });
    expect(assigned).toMatchObject({ id: slotOf(student).id, status: "marking" });
    const moved = await marksOn(slotOf(student).id);
    expect(moved.map((m) => [m.id, m.marked_by_user_id, Number(m.awarded_marks)]).sort()).toEqual(
      [
        [byColleague.id, school.head.id, 2],
        [byOwner.id, school.teacher.id, 4],
      ].sort(),
    );
    expect(await marksOn(scan.id)).toEqual([]);
    const results = await as(school.teacher).exam.batches.results({ batch_id: batch.id });
    expect(results.results.find((r) => r.student_id === student.id)).toMatchObject({ status: "marking", total: 6 });
    expect(results.results).toHaveLength(3);
  });

  it("a fully marked scan arrives complete; an absent student's own marks are kept beside the scan's", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const complete = await unmatchedScan(batch.id, "complete");
    for (const [question, value] of [[canvas.ids.q1a, 1], [canvas.ids.q1b, 2], [canvas.ids.q2, 3]] as const) await mark(school.teacher, complete.id, question, value);
    expect(await as(school.teacher).exam.submissions.assign({ submission_id: complete.id, student_id: roster.students[0]!.id })).toMatchObject({
      status: "complete",
    });

    // The absent slot was marked for q2 (possible through the API); the scan brings q1a and q1b.
    const slot = slotOf(roster.students[1]!);
    await mark(school.teacher, slot.id, canvas.ids.q2, 5);
    const partial = await unmatchedScan(batch.id, "partial");
    await mark(school.teacher, partial.id, canvas.ids.q1a, 3);
    await mark(school.teacher, partial.id, canvas.ids.q1b, 1);
    const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: partial.id, student_id: roster.students[1]!.id });
    expect(assigned).toMatchObject({ id: slot.id, status: "complete" });
    expect((await marksOn(slot.id)).map((m) => m.question_id).sort()).toEqual([canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2].sort());
  });

  it("refuses with 409 and changes nothing when both hold a mark for the same question", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const slot = slotOf(roster.students[0]!);
    await mark(school.teacher, slot.id, canvas.ids.q1a, 1);
    const scan = await unmatchedScan(batch.id);
    await mark(school.teacher, scan.id, canvas.ids.q1a, 3);
    await mark(school.teacher, scan.id, canvas.ids.q2, 2);
    const before = await rowsOf(batch.id);

    await expect(as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: roster.students[0]!.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/both have a mark for question 1a/),
    });
    expect(await rowsOf(batch.id)).toEqual(before);
    expect((await marksOn(scan.id)).map((m) => m.question_id).sort()).toEqual([canvas.ids.q1a, canvas.ids.q2].sort());
    expect((await marksOn(slot.id)).map((m) => Number(m.awarded_marks))).toEqual([1]);
  });

  it("rolls everything back when a step fails after the marks have moved", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const given = await mark(school.head, scan.id, canvas.ids.q1b, 2);
    // A failure injected into the last write (the delete of the unmatched row).
    await asService(database().db, async (tx) => {
      await tx.execute(sql.raw(`
        create or replace function test_fail_delete() returns trigger language plpgsql as $$
        begin raise exception 'injected failure'; end $$`));
      await tx.execute(sql.raw(`create trigger fail_delete before delete on exam_submissions for each row when (old.id = '${scan.id}') execute function test_fail_delete()`));
    });
    try {
      await expect(as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: roster.students[2]!.id })).rejects.toMatchObject({
        code: "INTERNAL_SERVER_ERROR",
      });
    } finally {
      await asService(database().db, async (tx) => {
        await tx.execute(sql.raw("drop trigger fail_delete on exam_submissions"));
        await tx.execute(sql.raw("drop function test_fail_delete()"));
      });
    }
    const slot = slotOf(roster.students[2]!);
    const rows = await rowsOf(batch.id);
    expect(rows.find((r) => r.id === scan.id)).toMatchObject({ student_id: null, scan_url: scan.scan_url, status: "marking" });
    expect(rows.find((r) => r.id === slot.id)).toMatchObject({ status: "absent", scan_url: null, scan_file_id: null });
    expect((await marksOn(scan.id)).map((m) => m.id)).toEqual([given.id]);
    expect(await marksOn(slot.id)).toEqual([]);
  });

  it("answers 404 outside the caller's scope, 403 to a colleague, 409 for an archived batch, a scanned slot or a roster submission", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const input = { submission_id: scan.id, student_id: roster.students[0]!.id };
    for (const outsider of [otherSchool.teacher, otherSchool.admin, school.student]) {
      await expect(as(outsider).exam.submissions.assign(input)).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    await expect(as(school.teacher).exam.submissions.assign({ ...input, submission_id: crypto.randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(school.otherTeacher).exam.submissions.assign(input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(school.admin).exam.submissions.assign(input)).rejects.toMatchObject({ code: "FORBIDDEN" });

    // A slot that already has a scan is never overwritten.
    const other = await unmatchedScan(batch.id, "second");
    await as(school.teacher).exam.submissions.assign({ submission_id: other.id, student_id: roster.students[1]!.id });
    await expect(as(school.teacher).exam.submissions.assign({ ...input, student_id: roster.students[1]!.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/already has a scan/),
    });
    // Only a scan without a student can be assigned.
    await expect(as(school.teacher).exam.submissions.assign({ submission_id: slotOf(roster.students[1]!).id, student_id: roster.students[2]!.id })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/only an unmatched scan/),
    });
    const absent = slotOf(roster.students[2]!);
    await expect(as(school.teacher).exam.submissions.assign({ submission_id: absent.id, student_id: roster.students[0]!.id })).rejects.toMatchObject({ code: "CONFLICT" });

    await as(school.teacher).exam.batches.archive({ batch_id: batch.id });
    await expect(as(school.teacher).exam.submissions.assign(input)).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/archived/) });
    expect((await rowsOf(batch.id)).find((r) => r.id === scan.id)).toMatchObject({ student_id: null, status: "unmatched" });
  });

  it("gives a student of the school who is not on the roster the scan's own row; refuses anyone else with 400", async () => {
    const { batch } = await newBatch(1);
    const scan = await unmatchedScan(batch.id);
    for (const notAStudent of [otherSchool.student, school.otherTeacher, { id: crypto.randomUUID() }]) {
      await expect(as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: notAStudent.id })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "Student: not a student of this batch's school",
      });
    }
    const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: school.student.id });
    expect(assigned).toMatchObject({ id: scan.id, student_id: school.student.id, student_name: "Student Assign", status: "matched", matching_method: "manual" });
    // The student now has a submission in the batch: a second scan for them is a scanned slot (409).
    const second = await unmatchedScan(batch.id, "again");
    await expect(as(school.teacher).exam.submissions.assign({ submission_id: second.id, student_id: school.student.id })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    // …but reads nothing of it until results are released to students (issue 32, item 7).
    await expect(as(school.student).exam.marks.forSubmission({ submission_id: scan.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("serialises concurrent assignments: one scan to two students, two scans to one student", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const outcomes = await Promise.allSettled(
      [roster.students[0]!, roster.students[1]!].map((student) => as(school.teacher).exam.submissions.assign({ submission_id: scan.id, student_id: student.id })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(outcomes.find((o) => o.status === "rejected")).toMatchObject({ reason: { code: "NOT_FOUND" } });

    const [first, second] = [await unmatchedScan(batch.id, "a"), await unmatchedScan(batch.id, "b")];
    const target = roster.students[2]!;
    const raced = await Promise.allSettled([first, second].map((s) => as(school.teacher).exam.submissions.assign({ submission_id: s.id, student_id: target.id })));
    expect(raced.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(raced.find((o) => o.status === "rejected")).toMatchObject({ reason: { code: "CONFLICT" } });
    const rows = await rowsOf(batch.id);
    expect(rows.filter((r) => r.student_id === null)).toHaveLength(1);
    expect(rows.find((r) => r.id === slotOf(target).id)!.scan_url).not.toBeNull();
  });

  it("row-level security: only the owner deletes, and only a student-less submission; moved marks keep their author only off an unmatched scan", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const slot = slotOf(roster.students[0]!);
    const deleteAs = (user: { id: string }, id: string) =>
      asUser(database().db, user.id, (tx) => tx.delete(examSubmissions).where(eq(examSubmissions.id, id)).returning({ id: examSubmissions.id }));
    expect(await deleteAs(school.teacher, slot.id)).toEqual([]);
    expect(await deleteAs(school.otherTeacher, scan.id)).toEqual([]);
    expect(await deleteAs(otherSchool.teacher, scan.id)).toEqual([]);
    expect((await rowsOf(batch.id)).map((r) => r.id)).toEqual(expect.arrayContaining([slot.id, scan.id]));

    // A colleague's mark on a roster submission cannot be moved by the owner without taking it over.
    const onSlot = await mark(school.head, slot.id, canvas.ids.q1a, 1);
    await expect(
      asUser(database().db, school.teacher.id, (tx) => tx.update(examMarkEntries).set({ submission_id: scan.id }).where(eq(examMarkEntries.id, onSlot.id))),
    ).rejects.toThrow();
    // A colleague cannot move the owner's mark off the unmatched scan while keeping the owner's name.
    const onScan = await mark(school.teacher, scan.id, canvas.ids.q2, 1);
    await expect(
      asUser(database().db, school.otherTeacher.id, (tx) => tx.update(examMarkEntries).set({ submission_id: slotOf(roster.students[1]!).id }).where(eq(examMarkEntries.id, onScan.id))),
    ).rejects.toThrow();
    expect((await marksOn(scan.id)).map((m) => m.id)).toEqual([onScan.id]);
    expect((await marksOn(slot.id)).map((m) => m.id)).toEqual([onSlot.id]);
  });

  it("REST: POST /api/exam/submissions/{id}/assign with the {detail} dialect, and the OpenAPI document describes it", async () => {
    const { batch, roster, slotOf } = await newBatch();
    const scan = await unmatchedScan(batch.id);
    const student = roster.students[2]!;

    expect((await assignOverRest(undefined, scan.id, { student_id: student.id })).status).toBe(401);
    expect((await assignOverRest(school.teacher.token, "not-a-uuid", { student_id: student.id })).status).toBe(404);
    expect((await assignOverRest(otherSchool.teacher.token, scan.id, { student_id: student.id })).status).toBe(404);
    const colleague = await assignOverRest(school.otherTeacher.token, scan.id, { student_id: student.id });
    expect(colleague.status).toBe(403);
    expect(await colleague.json()).toEqual({ detail: `This batch is ${school.teacher.full_name}'s: only its owner can assign its scans; ask ${school.teacher.full_name} if you should` });
    const missing = await assignOverRest(school.teacher.token, scan.id, {});
    expect(missing.status).toBe(400);
    expect((await missing.json()).detail).toBe("Student: must be a student's user id");
    expect((await assignOverRest(school.teacher.token, scan.id, "{oops")).status).toBe(400);

    const ok = await assignOverRest(school.teacher.token, scan.id, { student_id: student.id });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: slotOf(student).id, student_id: student.id, status: "matched", scan_url: scan.scan_url, matching_method: "manual" });
    const again = await assignOverRest(school.teacher.token, scan.id, { student_id: student.id });
    expect(again.status).toBe(404);

    const document = await openApiRoute().json();
    const route = await import("../app/api/exam/submissions/[submission_id]/assign/route");
    expect(route.dynamic).toBe("force-dynamic");
    const operation = document.paths["/api/exam/submissions/{submission_id}/assign"];
    expect(Object.keys(operation).filter((key) => key !== "parameters")).toEqual(["post"]);
    expect(operation.post.requestBody.content["application/json"].schema.required).toEqual(["student_id"]);
    expect(Object.keys(operation.post.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "409"]));
  });
});
