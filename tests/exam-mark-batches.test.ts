import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, expect, it, onTestFinished } from "vitest";
import { ZodError } from "zod";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { examAllocations, examAnnotations, examBatchMarkers, examMarkEntries, examSubmissions } from "../server/db/schema";
import { AppError } from "../server/errors";
import { saveMark } from "../server/exam/mark-writer";
import { type MarkOutcome, type MarkUpsert, upsertMarks } from "../server/exam/marks";
import { describeOnEachDatabase } from "./support/database";
import { callRest, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/** Several marks in one transaction (upsertMarks) and concurrent saves sharing transactions (saveMark). */
describeOnEachDatabase("exam marks written together", (database) => {
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let batchId: string;
  let foreignSubmissionId: string;

  const write = (submission_id: string, question_id: string, fields: Partial<MarkUpsert["body"]> = {}, mark_id = crypto.randomUUID()): MarkUpsert => ({
    mark_id,
    body: { submission_id, question_id, awarded_marks: 1, ...fields },
  });
  const asTeacher = (writes: MarkUpsert[], teacher = school.teacher) => upsertMarks(database().db, teacher.id, writes);
  const marksOf = (submissionId: string) => asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, submissionId)));
  const statusOf = async (submissionId: string) => {
    const [row] = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId)));
    return row!.status;
  };
  const errorOf = (outcome: MarkOutcome | undefined) => (outcome && "error" in outcome ? outcome.error : undefined);
  const markOf = (outcome: MarkOutcome | undefined) => {
    if (!outcome || !("mark" in outcome)) throw new Error(`expected a saved mark, got ${JSON.stringify(outcome)}`);
    return outcome.mark;
  };

  async function newSubmission(status: "absent" | "matched" | "marking" = "absent", batch = batchId) {
    const [row] = await asService(database().db, (tx) => tx.insert(examSubmissions).values({ batch_id: batch, status }).returning());
    return row!.id;
  }

  async function templateWithBatch(owner: School["teacher"], layout: ReturnType<typeof sampleCanvas>) {
    const template = await (await callRest(postTemplate, { method: "POST", token: owner.token, body: { title: "Mock", page_count: 4 } })).json();
    expect((await callRest(putTemplate, { method: "PUT", token: owner.token, body: layout, params: { template_id: template.id } })).status).toBe(200);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: owner.token, body: { template_id: template.id } })).json();
    return batch.id as string;
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Together");
    otherSchool = await createSchool(database().db, "Apart");
    canvas = sampleCanvas();
    batchId = await templateWithBatch(school.teacher, canvas);
    foreignSubmissionId = await newSubmission("matched", await templateWithBatch(otherSchool.teacher, sampleCanvas()));
  });

  it("gives each write its own outcome, in place: refused writes are not saved and the others are", async () => {
    const first = await newSubmission();
    const second = await newSubmission();
    const outcomes = await asTeacher([
      write(first, canvas.ids.q1a, { awarded_marks: 2 }),
      write(first, canvas.ids.q1b, { awarded_marks: 2.5 }),
      write(first, canvas.ids.q1),
      write(foreignSubmissionId, canvas.ids.q2),
      write(second, canvas.ids.q2, { awarded_marks: 4, comment: "neat" }),
      write(second, crypto.randomUUID()),
    ]);
    expect(markOf(outcomes[0])).toMatchObject({ submission_id: first, question_id: canvas.ids.q1a, awarded_marks: 2, batch_id: batchId, marked_by_user_id: school.teacher.id });
    expect(errorOf(outcomes[1])).toMatchObject({ code: "invalid", param: "awarded_marks" });
    expect(errorOf(outcomes[2])).toMatchObject({ code: "invalid", param: "question_id" });
    expect(errorOf(outcomes[3])).toMatchObject({ code: "not_found" });
    expect(markOf(outcomes[4])).toMatchObject({ submission_id: second, awarded_marks: 4, comment: "neat" });
    expect(errorOf(outcomes[5])).toMatchObject({ code: "not_found" });
    expect((await marksOf(first)).map((row) => row.question_id)).toEqual([canvas.ids.q1a]);
    expect((await marksOf(second)).map((row) => row.question_id)).toEqual([canvas.ids.q2]);
    expect(await marksOf(foreignSubmissionId)).toEqual([]);
    expect([await statusOf(first), await statusOf(second)]).toEqual(["marking", "marking"]);
  });

  it("applies writes to one pair in their order; each outcome is the mark as that write left it", async () => {
    const submission = await newSubmission();
    const firstId = crypto.randomUUID();
    const outcomes = await asTeacher([
      write(submission, canvas.ids.q2, { awarded_marks: 1 }, firstId),
      write(submission, canvas.ids.q2, { awarded_marks: 2, comment: "second thoughts" }),
      write(submission, canvas.ids.q1a, { awarded_marks: 3 }),
      write(submission, canvas.ids.q2, { awarded_marks: 3 }),
    ]);
    expect(outcomes.map((outcome) => markOf(outcome).awarded_marks)).toEqual([1, 2, 3, 3]);
    // The pair's entry keeps the id it was created with; a field not supplied later stays.
    expect([0, 1, 3].map((index) => markOf(outcomes[index]).id)).toEqual([firstId, firstId, firstId]);
    expect(markOf(outcomes[3]).comment).toBe("second thoughts");
    const rows = await marksOf(submission);
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.question_id === canvas.ids.q2)).toMatchObject({ id: firstId, awarded_marks: "3.00", comment: "second thoughts" });
  });

  it("writes only the optional fields each write supplies, when writes of one call supply different ones", async () => {
    const submission = await newSubmission();
    // A mark keeps the annotation ids that name a shape of its script (docs/decisions/marking-quality.md, "Annotations on the scan").
    const [shape] = await asService(database().db, (tx) =>
      tx.insert(examAnnotations).values({ id: crypto.randomUUID(), batch_id: batchId, submission_id: submission, page: 1, kind: "tick", geometry: { x: 0.5, y: 0.5 } }).returning(),
    );
    await asTeacher([write(submission, canvas.ids.q1a, { comment: "kept", confirmed: true, annotation_shape_ids: [shape!.id] })]);
    const outcomes = await asTeacher([
      write(submission, canvas.ids.q1a, { awarded_marks: 2 }),
      write(submission, canvas.ids.q1b, { awarded_marks: 2, mark_scheme_detail: { B1: true } }),
    ]);
    expect(markOf(outcomes[0])).toMatchObject({ awarded_marks: 2, comment: "kept", confirmed: true, annotation_shape_ids: [shape!.id] });
    expect(markOf(outcomes[1])).toMatchObject({ awarded_marks: 2, comment: null, confirmed: false, mark_scheme_detail: { B1: true } });
  });

  it("sets each submission's status from all its marks, those of the same call included", async () => {
    const completed = await newSubmission("absent");
    const undone = await newSubmission("absent");
    const matched = await newSubmission("matched");
    const confirmedMark = { awarded_marks: 1, confirmed: true };
    await asTeacher([
      write(completed, canvas.ids.q1a, confirmedMark),
      write(undone, canvas.ids.q1a, confirmedMark),
      write(completed, canvas.ids.q1b, confirmedMark),
      write(undone, canvas.ids.q1b, confirmedMark),
      write(completed, canvas.ids.q2, confirmedMark),
      write(undone, canvas.ids.q2, confirmedMark),
      // The last leaf of `undone` is unconfirmed again in the same call: it was complete for a moment.
      write(undone, canvas.ids.q2, { awarded_marks: 1, confirmed: false }),
      write(matched, canvas.ids.q2, { awarded_marks: 1 }),
    ]);
    expect(await statusOf(completed)).toBe("complete");
    expect(await statusOf(undone)).toBe("marking");
    expect(await statusOf(matched)).toBe("matched");
  });

  it("fails the whole call when a mark id names the mark of another pair: nothing of it is saved", async () => {
    const submission = await newSubmission();
    const taken = crypto.randomUUID();
    await asTeacher([write(submission, canvas.ids.q1a, {}, taken)]);
    const attempt = asTeacher([write(submission, canvas.ids.q1b, { awarded_marks: 2 }), write(submission, canvas.ids.q2, {}, taken)]);
    await expect(attempt).rejects.toMatchObject({ code: "conflict" });
    expect((await marksOf(submission)).map((row) => row.question_id)).toEqual([canvas.ids.q1a]);
  });

  it("saveMark: concurrent saves each get their own answer; a faulty one in a shared transaction fails alone", async () => {
    const submission = await newSubmission();
    const neighbour = await newSubmission();
    const taken = crypto.randomUUID();
    await saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q1a, {}, taken));
    // Called in one go: the first two saves go at once, the other four wait and go together; the
    // fourth names the first mark's id for a new pair, which fails their shared transaction.
    const saves = [
      write(submission, canvas.ids.q1b, { awarded_marks: 1 }),
      write(neighbour, canvas.ids.q1a, { awarded_marks: 1 }),
      write(submission, canvas.ids.q1b, { awarded_marks: 2 }),
      write(submission, canvas.ids.q2, { awarded_marks: 5 }, taken),
      write(submission, canvas.ids.q2, { awarded_marks: 9 }),
      write(submission, canvas.ids.q2, { awarded_marks: 4, comment: "last" }),
    ].map((input) => saveMark(database().db, school.teacher.id, input));
    const settled = await Promise.allSettled(saves);
    expect(settled.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((settled[3] as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    expect((settled[4] as PromiseRejectedResult).reason).toMatchObject({ code: "invalid", param: "awarded_marks" });
    const rows = await marksOf(submission);
    expect(rows.map((row) => [row.question_id, row.awarded_marks]).sort()).toEqual(
      [
        [canvas.ids.q1a, "1.00"],
        [canvas.ids.q1b, "2.00"],
        [canvas.ids.q2, "4.00"],
      ].sort(),
    );
    expect(rows.find((row) => row.question_id === canvas.ids.q2)?.comment).toBe("last");
    expect(await marksOf(neighbour)).toHaveLength(1);
  });

  it("saveMark: callers' saves never mix (each is written as its caller, under the caller's rights)", async () => {
    const submission = await newSubmission();
    const saves = [
      saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q1a)),
      saveMark(database().db, school.head.id, write(submission, canvas.ids.q1b)),
      saveMark(database().db, school.student.id, write(submission, canvas.ids.q2)),
      saveMark(database().db, otherSchool.teacher.id, write(submission, canvas.ids.q2)),
      saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q2, { awarded_marks: 5 })),
    ];
    const settled = await Promise.allSettled(saves);
    expect(settled.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected", "rejected", "fulfilled"]);
    for (const index of [2, 3]) expect((settled[index] as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    const byQuestion = new Map((await marksOf(submission)).map((row) => [row.question_id, row]));
    expect(byQuestion.get(canvas.ids.q1a)?.marked_by_user_id).toBe(school.teacher.id);
    expect(byQuestion.get(canvas.ids.q1b)?.marked_by_user_id).toBe(school.head.id);
    expect(byQuestion.get(canvas.ids.q2)).toMatchObject({ marked_by_user_id: school.teacher.id, awarded_marks: "5.00" });
  });

  it("saveMark: one caller's faulty save fails alone in a transaction shared with other callers", async () => {
    const submission = await newSubmission();
    const taken = crypto.randomUUID();
    // The admin writes as an invited marker of every script (only the owner, heads and markers write marks), for this test only.
    await asService(database().db, async (tx) => {
      await tx.insert(examBatchMarkers).values({ batch_id: batchId, user_id: school.admin.id, added_by: school.teacher.id });
      await tx.insert(examAllocations).values({ batch_id: batchId, marker_id: school.admin.id, first_script: 1 });
    });
    onTestFinished(async () => {
      await asService(database().db, (tx) => tx.delete(examBatchMarkers).where(eq(examBatchMarkers.user_id, school.admin.id)));
    });
    await saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q1a, {}, taken));
    // The first save makes the submission busy, so the next four wait and go together, as three callers;
    // the admin's names the first mark's id for a new pair, and the teacher's last write of q2 comes after
    // it (a caller's writes are not moved ahead of another caller's on the same submission).
    const saves = [
      saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q1a, { awarded_marks: 2 })),
      saveMark(database().db, school.head.id, write(submission, canvas.ids.q1b, { awarded_marks: 1.5 })),
      saveMark(database().db, school.admin.id, write(submission, canvas.ids.q2, { awarded_marks: 4 }, taken)),
      saveMark(database().db, school.teacher.id, write(submission, canvas.ids.q2, { awarded_marks: 5 })),
    ];
    const settled = await Promise.allSettled(saves);
    expect(settled.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: "conflict" });
    const byQuestion = new Map((await marksOf(submission)).map((row) => [row.question_id, row]));
    expect(byQuestion.get(canvas.ids.q1b)).toMatchObject({ marked_by_user_id: school.head.id, awarded_marks: "1.50" });
    expect(byQuestion.get(canvas.ids.q2)).toMatchObject({ marked_by_user_id: school.teacher.id, awarded_marks: "5.00" });
  });

  it("saveMark: bad input is refused before it is queued", () => {
    const body = { submission_id: "y", question_id: "z", awarded_marks: 1 };
    expect(() => saveMark(database().db, school.teacher.id, { mark_id: crypto.randomUUID(), body })).toThrow(ZodError);
    // A malformed mark id names no mark: not found, as on the REST path (and before anything is queued).
    expect(() => saveMark(database().db, school.teacher.id, { mark_id: "x", body })).toThrow(AppError);
  });
});
