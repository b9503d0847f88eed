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
import { releaseForTest } from "./support/release-fixtures";

/**
 * Once results are released, a student reads their own script through the student's own edges
 * (student.*, /api/me); the markers' edges stay the markers': the marking screen's marks (with who
 * marked them), the scan as staff get it, the name crop, the queue and the results answer a student 404,
 * as before release (tests/student-no-marks.test.ts).
 */
describeOnEachDatabase("after release, the markers' edges still refuse a student", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Released");
  });

  it("marks, scan, name crop, queue and results are not found for the student of a released script", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Released", page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 1);
    const student = { ...roster.students[0]!, token: await signUserToken({ userId: roster.students[0]!.id, ttlSeconds: 600 }) };
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    const [submission] = await asService(database().db, (tx) =>
      tx.update(examSubmissions).set({ scan_url: `exam-submissions/${batch.id}/s.pdf`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id)).returning(),
    );
    await teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submission!.id, question_id: canvas.ids.q2, awarded_marks: 3, comment: "released" } });
    await releaseForTest(database().db, batch.id);

    const reader = as(student);
    await expect(reader.exam.marks.forSubmission({ submission_id: submission!.id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Submission not found" });
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
      expect(await reply.text()).not.toMatch(/exam-submissions/);
    }
  });
});
