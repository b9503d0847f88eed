import crypto from "node:crypto";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { examBatches, examSubmissions } from "../../server/db/schema";
import { createCaller } from "../../server/trpc/root";
import { createClassWithStudents, sampleCanvas } from "./exam-fixtures";
import type { School } from "./fixtures";

/**
 * Releases a batch's scripts to their students by writing the release columns as the database owner:
 * for tests of what a release lets students do, apart from the release itself (exam.release.release).
 * Every script with a student, or only `submissionIds`; reviews open until `reviewsUntil` (null: none).
 */
export async function releaseForTest(db: Db, batchId: string, { reviewsUntil = null, submissionIds }: { reviewsUntil?: Date | null; submissionIds?: string[] } = {}) {
  await asService(db, async (tx) => {
    await tx.update(examBatches).set({ released_at: new Date(), release_scope: "all", reviews_until: reviewsUntil }).where(eq(examBatches.id, batchId));
    await tx
      .update(examSubmissions)
      .set({ released_at: new Date() })
      .where(and(eq(examSubmissions.batch_id, batchId), isNotNull(examSubmissions.student_id), submissionIds ? inArray(examSubmissions.id, submissionIds) : undefined));
  });
}

/** Withdraws a release as exam.release.withdraw does: the batch's and every script's released_at cleared. */
export async function withdrawForTest(db: Db, batchId: string) {
  await asService(db, async (tx) => {
    await tx.update(examBatches).set({ released_at: null, release_scope: null, reviews_until: null }).where(eq(examBatches.id, batchId));
    await tx.update(examSubmissions).set({ released_at: null }).where(eq(examSubmissions.batch_id, batchId));
  });
}

/**
 * A batch of two students of `school`, both scripts scanned and marked (1a: 2 of 3, 1b: 1 of 2, 2: 3 of
 * 5, all confirmed), released with reviews open until `reviewsUntil` (unless `release` is false).
 */
export async function markedReleasedBatch(db: Db, school: School, { reviewsUntil, release = true }: { reviewsUntil: Date | null; release?: boolean }) {
  const teacher = createCaller({ db, user: { id: school.teacher.id } });
  const template = await teacher.exam.templates.create({ title: "Mock paper", page_count: 4 });
  const canvas = sampleCanvas();
  await teacher.exam.templates.save({ template_id: template.id, body: canvas });
  const roster = await createClassWithStudents(db, school, 2);
  const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
  const scripts = await asService(db, (tx) =>
    tx.update(examSubmissions).set({ scan_url: `exam-submissions/${batch.id}/s.pdf`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id)).returning(),
  );
  const scriptOf = (student: { id: string }) => scripts.find((script) => script.student_id === student.id)!;
  for (const script of scripts) {
    for (const [question, marks] of [
      [canvas.ids.q1a, 2],
      [canvas.ids.q1b, 1],
      [canvas.ids.q2, 3],
    ] as const) {
      await teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script.id, question_id: question, awarded_marks: marks, confirmed: true } });
    }
  }
  if (release) await releaseForTest(db, batch.id, { reviewsUntil });
  const [student, classmate] = [roster.students[0]!, roster.students[1]!];
  return { batch, canvas, student, classmate, script: scriptOf(student), classmateScript: scriptOf(classmate) };
}
