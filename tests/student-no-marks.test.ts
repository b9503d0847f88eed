import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as resultsRoute } from "../app/api/exam/batches/[batch_id]/results/route";
import { GET as nameCropRoute } from "../app/api/exam/submissions/[submission_id]/name-crop/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { signUserToken } from "../server/auth/tokens";
import { asService } from "../server/db/rls";
import { examSubmissions } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * Issue 32, item 7: a student read their own marks as they were typed (with the marker's id and the
 * scan's storage key) through tRPC exam.marks.forSubmission while REST refused them. Until results are
 * released to students (issue 35), a student reads no mark and no submission on any edge: 404, as
 * for anything outside their scope, with the same sentence as for an id that exists nowhere. Once
 * released, the staff edges still answer them 404: a student reads their script through their own.
 */
describeOnEachDatabase("students read no marks until results are released", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Results");
  });

  it("a student's own marked submission is not found through tRPC or REST, and staff still read it", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Released later", page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 1);
    const student = { ...roster.students[0]!, token: await signUserToken({ userId: roster.students[0]!.id, ttlSeconds: 600 }) };
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    const [submission] = await asService(database().db, (tx) =>
      tx.update(examSubmissions).set({ scan_url: `exam-submissions/${batch.id}/s.pdf`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id)).returning(),
    );
    await teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submission!.id, question_id: canvas.ids.q2, awarded_marks: 3, comment: "typed, not released" } });
    expect((await teacher.exam.marks.forSubmission({ submission_id: submission!.id })).marks).toHaveLength(1);

    const reader = as(student);
    const ghost = crypto.randomUUID();
    for (const id of [submission!.id, ghost]) {
      await expect(reader.exam.marks.forSubmission({ submission_id: id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Submission not found" });
    }
    await expect(reader.exam.batches.results({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(reader.exam.batches.queue({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    for (const [route, params] of [
      [scanRoute, { submission_id: submission!.id }],
      [nameCropRoute, { submission_id: submission!.id }],
      [queueRoute, { batch_id: batch.id }],
      [resultsRoute, { batch_id: batch.id }],
    ] as const) {
      const reply = await callRest(route as Parameters<typeof callRest>[0], { token: student.token, params });
      expect(reply.status).toBe(404);
      expect(await reply.text()).not.toMatch(/typed, not released|exam-submissions/);
    }
  });

  it("once released, a student still reads nothing through the staff edges: their script comes through the student's own, not the marking screen's", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Released now", page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 1);
    const student = { ...roster.students[0]!, token: await signUserToken({ userId: roster.students[0]!.id, ttlSeconds: 600 }) };
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    const [submission] = await asService(database().db, (tx) =>
      tx.update(examSubmissions).set({ scan_url: `exam-submissions/${batch.id}/s.pdf`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id)).returning(),
    );
    await teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submission!.id, question_id: canvas.ids.q2, awarded_marks: 3, comment: "typed, now released" } });
    await teacher.exam.release.release({ batch_id: batch.id, scope: "all" });

    const reader = as(student);
    // The marking screen's read names the marker and the scan's storage key: not the student's, released or not.
    await expect(reader.exam.marks.forSubmission({ submission_id: submission!.id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Submission not found" });
    await expect(reader.exam.batches.results({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(reader.exam.batches.queue({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(reader.exam.release.status({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    for (const [route, params] of [
      [scanRoute, { submission_id: submission!.id }],
      [nameCropRoute, { submission_id: submission!.id }],
      [queueRoute, { batch_id: batch.id }],
      [resultsRoute, { batch_id: batch.id }],
    ] as const) {
      const reply = await callRest(route as Parameters<typeof callRest>[0], { token: student.token, params });
      expect(reply.status).toBe(404);
      expect(await reply.text()).not.toMatch(/typed, now released|exam-submissions/);
    }
  });
});
