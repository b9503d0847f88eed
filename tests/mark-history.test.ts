import crypto from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { examMarkHistory } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { markedReleasedBatch } from "./support/release-fixtures";

/**
 * Issue 35, item 6: every change of a recorded mark is kept (before → after, who, when, why), whichever
 * path changes it, by one trigger per statement (a rubric edit re-scores many marks in one UPDATE).
 */
describeOnEachDatabase("the history of a mark", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "History");
  });

  const historyOf = (submissionId: string) =>
    asService(database().db, (tx) =>
      tx.select().from(examMarkHistory).where(eq(examMarkHistory.submission_id, submissionId)).orderBy(asc(examMarkHistory.changed_at), asc(examMarkHistory.marks_after)),
    );

  it("a typed change is one row; saving the same mark again, or only its comment, is none", async () => {
    const { canvas, script } = await markedReleasedBatch(database().db, school, { reviewsUntil: null, release: false });
    const teacher = as(school.teacher);
    const save = (awarded: number, comment?: string) =>
      teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script.id, question_id: canvas.ids.q2, awarded_marks: awarded, comment } });
    await save(3, "same mark, new comment");
    await save(3);
    expect(await historyOf(script.id)).toEqual([]);
    await save(5);
    const rows = await historyOf(script.id);
    expect(rows.map((row) => [row.question_id, Number(row.marks_before), Number(row.marks_after), row.changed_by, row.reason])).toEqual([
      [canvas.ids.q2, 3, 5, school.teacher.id, null],
    ]);
  });

  it("a rubric edit that re-scores every script's mark writes one row per mark it changed, by the editor (the template's owner)", async () => {
    const { batch, canvas, script, classmateScript } = await markedReleasedBatch(database().db, school, { reviewsUntil: null, release: false });
    const teacher = as(school.teacher);
    const item = await teacher.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct method", points: 2 } });
    for (const submission of [script, classmateScript]) {
      await teacher.exam.marks.upsert({
        mark_id: crypto.randomUUID(),
        body: { submission_id: submission.id, question_id: canvas.ids.q2, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [item.id] } },
      });
    }
    const before = [...(await historyOf(script.id)), ...(await historyOf(classmateScript.id))].length;
    expect((await teacher.exam.rubric.edit({ item_id: item.id, body: { points: 4 } })).marks_rescored).toBe(2);
    for (const submission of [script, classmateScript]) {
      const last = (await historyOf(submission.id)).at(-1)!;
      expect([Number(last.marks_before), Number(last.marks_after), last.changed_by, last.batch_id]).toEqual([2, 4, school.teacher.id, batch.id]);
    }
    expect([...(await historyOf(script.id)), ...(await historyOf(classmateScript.id))].length).toBe(before + 2);
  });

  it("a rubric edit writes history only for the marks it changed: a mark held at the question's maximum is not rewritten and has no row", async () => {
    const { canvas, script, classmateScript } = await markedReleasedBatch(database().db, school, { reviewsUntil: null, release: false });
    const teacher = as(school.teacher);
    const method = await teacher.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct method", points: 2 } });
    const answer = await teacher.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct answer", points: 5 } });
    // The script: the method alone (2 of 5). The classmate's: both items, 7 held at the maximum, 5.
    for (const [submission, items] of [[script, [method.id]], [classmateScript, [method.id, answer.id]]] as const) {
      await teacher.exam.marks.upsert({
        mark_id: crypto.randomUUID(),
        body: { submission_id: submission.id, question_id: canvas.ids.q2, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [...items] } },
      });
    }
    const classmateBefore = await historyOf(classmateScript.id);
    const scriptBefore = (await historyOf(script.id)).length;
    // The method is worth 3 now: the script's mark goes 2 → 3; the classmate's 8 is still held at 5.
    expect((await teacher.exam.rubric.edit({ item_id: method.id, body: { points: 3 } })).marks_rescored).toBe(1);
    const scriptAfter = await historyOf(script.id);
    expect(scriptAfter).toHaveLength(scriptBefore + 1);
    expect([Number(scriptAfter.at(-1)!.marks_before), Number(scriptAfter.at(-1)!.marks_after)]).toEqual([2, 3]);
    expect(await historyOf(classmateScript.id)).toEqual(classmateBefore);
  });
});
