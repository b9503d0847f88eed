import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { POST as createItemRoute } from "../app/api/exam/questions/[question_id]/rubric-items/route";
import { GET as rubricEditsRoute } from "../app/api/exam/questions/[question_id]/rubric-edits/route";
import { DELETE as deleteItemRoute, PATCH as editItemRoute } from "../app/api/exam/rubric-items/[item_id]/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { rowsOf } from "../server/db/client";
import { asService, asUser } from "../server/db/rls";
import { editRubricItem } from "../server/exam/rubrics";
import { examMarkEntries, examMarkRescores } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileNumber, hostileString } from "./support/hostile-input";

describeOnEachDatabase("rubrics: items, marks made of them, re-scoring", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  /** A template of the school's teacher with the sample canvas (1a: 3 marks, 1b: 2, Q2: 5), and a batch of `students` on it. */
  async function markedPaper(students = 3) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: `Rubric ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const batch = await newBatch(template.id, students);
    return { template, canvas, batch };
  }
  async function newBatch(templateId: string, students: number) {
    const roster = await createClassWithStudents(database().db, school, students);
    const batch = await as(school.teacher).exam.batches.create({ template_id: templateId, class_id: roster.class.id });
    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    return { ...batch, submissions: queue.submissions.map((submission) => submission.id) };
  }
  const applyItems = (marker: School["teacher"], submissionId: string, questionId: string, items: string[], extra: Record<string, unknown> = {}) =>
    as(marker).exam.marks.upsert({
      mark_id: crypto.randomUUID(),
      body: { submission_id: submissionId, question_id: questionId, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items }, ...extra },
    });
  const storedMarks = (batchId: string) =>
    asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.batch_id, batchId)));
  /** What every rubric mark of the batch must be: its items' sum within 0..max, recomputed from scratch. */
  const rubricMarksOffTheirSum = (batchId: string) =>
    asService(database().db, async (tx) =>
      rowsOf<{ id: string }>(
        await tx.execute(sql`select m.id from exam_mark_entries m join exam_questions q on q.id = m.question_id
          where m.batch_id = ${batchId} and m.mark_scheme_detail ->> 'type' = 'rubric'
            and m.awarded_marks is distinct from (select awarded from app.rubric_mark(m.mark_scheme_detail, m.question_id, q.max_marks))`),
      ),
    );

  beforeAll(async () => {
    school = await createSchool(database().db, "Rubric");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("the owner builds a question's rubric, in order; it comes with the template; colleagues and other schools cannot change it", async () => {
    const { template, canvas } = await markedPaper(1);
    const owner = as(school.teacher);
    const units = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct units", points: 1 } });
    const method = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct method", points: 2, spec_ref: "8300.A2", comment: "Good method" } });
    const first = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Sign error", points: -1, position: 0 } });
    expect(units).toMatchObject({ question_id: canvas.ids.q2, template_id: template.id, points: 1, position: 0 });

    const read = await as(school.otherTeacher).exam.templates.get({ template_id: template.id });
    expect(read.rubric_items.map((item) => [item.text, item.position])).toEqual([
      ["Sign error", 0],
      ["Correct units", 1],
      ["Correct method", 2],
    ]);
    expect(read.rubric_items[2]).toMatchObject({ id: method.id, spec_ref: "8300.A2", comment: "Good method", points: 2 });

    // A colleague sees the rubric but may not change it; another school does not see it at all.
    await expect(as(school.otherTeacher).exam.rubric.edit({ item_id: first.id, body: { points: 5 } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(school.otherTeacher).exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "x", points: 1 } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    for (const outsider of [otherSchool.teacher, otherSchool.admin, otherSchool.head]) {
      await expect(as(outsider).exam.rubric.edit({ item_id: first.id, body: { points: 5 } })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(outsider).exam.rubric.delete({ item_id: first.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(outsider).exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "x", points: 1 } })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(outsider).exam.rubric.history({ question_id: canvas.ids.q2 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    // A container takes no items.
    const container = await callRest(createItemRoute, { method: "POST", token: school.teacher.token, params: { question_id: canvas.ids.q1 }, body: { text: "x", points: 1 } });
    expect(container.status).toBe(400);
    expect((await container.json()).detail).toMatch(/Question 1 takes no mark itself/);
    expect((await owner.exam.templates.get({ template_id: template.id })).rubric_items).toHaveLength(3);
  });

  it("refuses hostile item bodies with a 400 naming the field, and stores nothing", async () => {
    const { template, canvas } = await markedPaper(1);
    const create = (body: unknown) => callRest(createItemRoute, { method: "POST", token: school.teacher.token, params: { question_id: canvas.ids.q2 }, body });
    const { seed, cases } = fuzzSettings(60);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ text: hostileString, points: fc.constant(1) }),
          fc.record({ text: fc.constant("Units"), points: fc.oneof(hostileNumber, hostileString, fc.constant(null)) }),
          fc.record({ text: fc.constant("Units"), points: fc.constant(1), position: fc.oneof(hostileNumber, hostileString) }),
          fc.record({ text: fc.constant("Units"), points: fc.constant(1), comment: hostileString, spec_ref: hostileString }),
          fc.anything(),
        ),
        async (body) => {
          const reply = await create(body);
          const answer = await reply.json();
          // A body that happens to be storable is created; anything else is a 400 with a message.
          if (reply.status === 201) return;
          expect(reply.status, JSON.stringify(answer)).toBe(400);
          expect(answer.detail).toEqual(expect.any(String));
        },
      ),
      { seed, numRuns: cases },
    );
    const nul = await create({ text: "Units\u0000", points: 1 });
    expect(nul.status).toBe(400);
    expect((await nul.json()).detail).toBe("Text: must not contain NUL characters");
    const items = (await as(school.teacher).exam.templates.get({ template_id: template.id })).rubric_items;
    for (const item of items) expect(item.text.includes("\u0000")).toBe(false);
    const badId = await callRest(editItemRoute, { method: "PATCH", token: school.teacher.token, params: { item_id: "not-an-id" }, body: { points: 1 } });
    expect(badId.status).toBe(404);
  });

  it("a mark made of items is their sum within 0..max, whatever awarded_marks says, and shows the items", async () => {
    const { canvas, batch } = await markedPaper(2);
    const owner = as(school.teacher);
    const a = await owner.exam.rubric.create({ question_id: canvas.ids.q1a, body: { text: "M1", points: 2 } });
    const b = await owner.exam.rubric.create({ question_id: canvas.ids.q1a, body: { text: "A1", points: 2 } });
    const minus = await owner.exam.rubric.create({ question_id: canvas.ids.q1a, body: { text: "Penalty", points: -3 } });
    const other = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Q2 item", points: 1 } });
    const [first, second] = batch.submissions as [string, string];

    const clampedHigh = await applyItems(school.head, first, canvas.ids.q1a, [a.id, b.id], { awarded_marks: 1 });
    expect(clampedHigh).toMatchObject({ awarded_marks: 3, mark_scheme_detail: { type: "rubric", items: [a.id, b.id] }, marked_by_user_id: school.head.id });
    expect((await applyItems(school.head, second, canvas.ids.q1a, [a.id, minus.id])).awarded_marks).toBe(0);
    expect((await applyItems(school.head, second, canvas.ids.q1a, [a.id.toUpperCase()])).mark_scheme_detail).toEqual({ type: "rubric", items: [a.id] });
    expect((await applyItems(school.head, second, canvas.ids.q1a, [])).awarded_marks).toBe(0);

    // Items of another question, duplicated, or not ids: 400 naming mark_scheme_detail, nothing saved.
    const before = await storedMarks(batch.id);
    const put = (detail: unknown) =>
      callRest(markRoute, {
        method: "PUT",
        token: school.head.token,
        params: { mark_id: crypto.randomUUID() },
        body: { submission_id: first, question_id: canvas.ids.q1a, awarded_marks: 1, mark_scheme_detail: detail },
      });
    for (const detail of [
      { type: "rubric", items: [other.id] },
      { type: "rubric", items: [crypto.randomUUID()] },
      { type: "rubric", items: [a.id, a.id] },
      { type: "rubric", items: ["not-an-id"] },
      { type: "rubric", items: "all" },
      { type: "rubric" },
      { type: "rubric", items: [a.id], extra: true },
    ]) {
      const reply = await put(detail);
      expect(reply.status, JSON.stringify(detail)).toBe(400);
      expect((await reply.json()).detail, JSON.stringify(detail)).toMatch(/^(Rubric|Mark scheme detail)/);
    }
    expect(await storedMarks(batch.id)).toEqual(before);
    // Another detail is free JSON, as the contract has it.
    expect((await put({ type: "points", M1: true })).status).toBe(200);
  });

  it("new points re-score exactly the marks made of the item, in every open batch of the template, with an audit row each", async () => {
    const { template, canvas, batch } = await markedPaper(4);
    const owner = as(school.teacher);
    const method = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Method", points: 2 } });
    const answer = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Answer", points: 2 } });
    const units = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Units", points: 1 } });
    const secondBatch = await newBatch(template.id, 2);
    const archivedBatch = await newBatch(template.id, 1);
    const [s1, s2, s3, s4] = batch.submissions as [string, string, string, string];

    const withMethod = [
      await applyItems(school.teacher, s1, canvas.ids.q2, [method.id, answer.id]),
      await applyItems(school.head, s2, canvas.ids.q2, [method.id, answer.id, units.id]),
      await applyItems(school.head, secondBatch.submissions[0]!, canvas.ids.q2, [method.id]),
    ];
    const withoutMethod = await applyItems(school.teacher, s3, canvas.ids.q2, [answer.id, units.id]);
    const typed = await owner.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: s4, question_id: canvas.ids.q2, awarded_marks: 4 } });
    const archived = await applyItems(school.teacher, archivedBatch.submissions[0]!, canvas.ids.q2, [method.id]);
    await owner.exam.batches.archive({ batch_id: archivedBatch.id });
    expect(withMethod.map((mark) => mark.awarded_marks)).toEqual([4, 5, 2]);

    const untouchedBefore = await asService(database().db, (tx) =>
      tx.select().from(examMarkEntries).where(sql`${examMarkEntries.id} in (${withoutMethod.id}, ${typed.id}, ${archived.id})`),
    );
    const edited = await owner.exam.rubric.edit({ item_id: method.id, body: { points: 3.5 } });
    // The mark at 5 of 5 stays 5 (6.5 clamped): two marks changed.
    expect(edited).toMatchObject({ item: { id: method.id, points: 3.5 }, marks_rescored: 2 });

    const after = new Map((await asService(database().db, (tx) => tx.select().from(examMarkEntries))).map((row) => [row.id, row]));
    // 3.5 + 2 = 5.5 is above Q2's 5: clamped.
    expect(withMethod.map((mark) => Number(after.get(mark.id)!.awarded_marks))).toEqual([5, 5, 3.5]);
    // Each keeps its marker.
    expect(withMethod.map((mark) => after.get(mark.id)!.marked_by_user_id)).toEqual([school.teacher.id, school.head.id, school.head.id]);
    // Nothing else moved, not even its updated_at.
    for (const row of untouchedBefore) expect(after.get(row.id)).toEqual(row);

    // The audit: who, when, the item before and after; each mark before → after.
    const history = await as(school.otherTeacher).exam.rubric.history({ question_id: canvas.ids.q2 });
    expect(history.edits[0]).toMatchObject({
      rubric_item_id: method.id,
      kind: "changed",
      edited_by: school.teacher.id,
      edited_by_name: school.teacher.full_name,
      before: { points: 2 },
      after: { points: 3.5 },
      marks_rescored: 2,
    });
    const audit = await asService(database().db, (tx) => tx.select().from(examMarkRescores).where(eq(examMarkRescores.edit_id, history.edits[0]!.id)));
    expect(audit.map((row) => [row.mark_id, Number(row.awarded_before), Number(row.awarded_after)]).sort()).toEqual(
      [
        [withMethod[0]!.id, 4, 5],
        [withMethod[2]!.id, 2, 3.5],
      ].sort(),
    );

    // Results and the CSV read the new marks at once.
    const results = await owner.exam.batches.results({ batch_id: batch.id });
    expect(results.results.find((row) => row.submission_id === s1)!.marks[canvas.ids.q2]).toBe(5);
    const csv = await (await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: secondBatch.id } })).text();
    expect(csv).toMatch(/3\.5/);

    // Down to a penalty: the sums go below zero and stop at 0.
    await owner.exam.rubric.edit({ item_id: method.id, body: { points: -10 } });
    const floored = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.id, withMethod[0]!.id)));
    expect(Number(floored[0]!.awarded_marks)).toBe(0);
    // A new text re-scores nothing.
    expect((await owner.exam.rubric.edit({ item_id: method.id, body: { text: "Valid method" } })).marks_rescored).toBe(0);
    expect(await rubricMarksOffTheirSum(batch.id)).toEqual([]);
    expect(await rubricMarksOffTheirSum(secondBatch.id)).toEqual([]);
    // The archived batch kept its score: its results are final.
    expect(await rubricMarksOffTheirSum(archivedBatch.id)).toHaveLength(1);
  });

  it("a deleted item leaves the marks made of it, which are re-scored; REST answers with the count", async () => {
    const { canvas, batch } = await markedPaper(2);
    const owner = as(school.teacher);
    const keep = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Keep", points: 1 } });
    const gone = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Gone", points: 3 } });
    const mark = await applyItems(school.teacher, batch.submissions[0]!, canvas.ids.q2, [gone.id, keep.id]);
    expect(mark.awarded_marks).toBe(4);

    const colleague = await callRest(deleteItemRoute, { method: "DELETE", token: school.otherTeacher.token, params: { item_id: gone.id } });
    expect(colleague.status).toBe(403);
    const outsider = await callRest(deleteItemRoute, { method: "DELETE", token: otherSchool.teacher.token, params: { item_id: gone.id } });
    expect(outsider.status).toBe(404);
    expect(await outsider.json()).toEqual({ detail: "Rubric item not found" });

    const deleted = await callRest(deleteItemRoute, { method: "DELETE", token: school.teacher.token, params: { item_id: gone.id } });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ id: gone.id, marks_rescored: 1 });
    const [row] = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.id, mark.id)));
    expect(row).toMatchObject({ awarded_marks: "1.00", mark_scheme_detail: { type: "rubric", items: [keep.id] } });
    // Applying the deleted item now is refused, naming the detail.
    await expect(applyItems(school.teacher, batch.submissions[1]!, canvas.ids.q2, [gone.id])).rejects.toMatchObject({ code: "BAD_REQUEST" });

    const edits = await callRest(rubricEditsRoute, { token: school.otherTeacher.token, params: { question_id: canvas.ids.q2 } });
    expect((await edits.json()).edits.map((edit: { kind: string }) => edit.kind)).toEqual(["deleted", "created", "created"]);
    const patched = await callRest(editItemRoute, { method: "PATCH", token: school.teacher.token, params: { item_id: keep.id }, body: { points: 2 } });
    expect(await patched.json()).toMatchObject({ item: { id: keep.id, points: 2 }, marks_rescored: 1 });
  });

  it("a new maximum re-clamps rubric marks, while a typed mark above it still refuses a lower maximum", async () => {
    const { canvas, batch } = await markedPaper(2);
    const owner = as(school.teacher);
    const big = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Big", points: 8 } });
    const rubricMark = await applyItems(school.teacher, batch.submissions[0]!, canvas.ids.q2, [big.id]);
    expect(rubricMark.awarded_marks).toBe(5);
    await owner.exam.questions.editMarkScheme({ question_id: canvas.ids.q2, body: { max_marks: 6 } });
    const read = async () => Number((await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.id, rubricMark.id))))[0]!.awarded_marks);
    expect(await read()).toBe(6);
    await owner.exam.questions.editMarkScheme({ question_id: canvas.ids.q2, body: { max_marks: 2 } });
    expect(await read()).toBe(2);
    expect((await owner.exam.rubric.history({ question_id: canvas.ids.q2 })).edits[0]).toMatchObject({ kind: "max_marks", before: { max_marks: 6 }, after: { max_marks: 2 }, marks_rescored: 1 });

    await owner.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: batch.submissions[1]!, question_id: canvas.ids.q2, awarded_marks: 2 } });
    await expect(owner.exam.questions.editMarkScheme({ question_id: canvas.ids.q2, body: { max_marks: 1 } })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("a typed mark without a detail replaces a rubric mark's items; a write that keeps its value keeps them", async () => {
    const { canvas, batch } = await markedPaper(1);
    const item = await as(school.teacher).exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Item", points: 2 } });
    const mark = await applyItems(school.teacher, batch.submissions[0]!, canvas.ids.q2, [item.id]);
    const body = { submission_id: batch.submissions[0]!, question_id: canvas.ids.q2 };
    const confirmed = await as(school.teacher).exam.marks.upsert({ mark_id: mark.id, body: { ...body, awarded_marks: 2, confirmed: true } });
    expect(confirmed.mark_scheme_detail).toEqual({ type: "rubric", items: [item.id] });
    const typed = await as(school.teacher).exam.marks.upsert({ mark_id: mark.id, body: { ...body, awarded_marks: 4 } });
    expect(typed).toMatchObject({ awarded_marks: 4, mark_scheme_detail: null });
    // The typed mark is no longer the item's: re-scoring leaves it.
    expect((await as(school.teacher).exam.rubric.edit({ item_id: item.id, body: { points: 1 } })).marks_rescored).toBe(0);
  });

  it("a canvas save keeps the items of the parts that stay and drops the others", async () => {
    const { template, canvas } = await markedPaper(0);
    const owner = as(school.teacher);
    const kept = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Kept", points: 1 } });
    await owner.exam.rubric.create({ question_id: canvas.ids.q1b, body: { text: "Dropped with 1b", points: 1 } });
    const withoutOneB = {
      questions: canvas.questions.filter((question) => question.id !== canvas.ids.q1b).map((question) => (question.id === canvas.ids.q1 ? { ...question, max_marks: 3 } : question)),
      response_areas: canvas.response_areas.filter((area) => area.question_id !== canvas.ids.q1b),
      boundaries: canvas.boundaries,
    };
    const saved = await owner.exam.templates.save({ template_id: template.id, body: withoutOneB });
    expect(saved.rubric_items.map((item) => item.id)).toEqual([kept.id]);
  });

  it("a mark applying an item while an edit of its points is uncommitted waits for it, and sums the new points", async () => {
    const { canvas, batch } = await markedPaper(1);
    const item = await as(school.teacher).exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Method", points: 1 } });
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let edited!: () => void;
    const editDone = new Promise<void>((resolve) => (edited = resolve));
    // The edit (and its re-score, which finds no mark yet) is made, then its transaction is held open.
    const edit = asUser(database().db, school.teacher.id, async (tx) => {
      await editRubricItem(tx, school.teacher.id, { item_id: item.id, body: { points: 4 } });
      edited();
      await held;
    });
    await editDone;
    const save = applyItems(school.head, batch.submissions[0]!, canvas.ids.q2, [item.id]);
    // Long enough for a save that did not wait to finish on the old points.
    await Promise.race([save, new Promise((resolve) => setTimeout(resolve, 500))]);
    commit();
    await edit;
    expect((await save).awarded_marks).toBe(4);
    expect(await rubricMarksOffTheirSum(batch.id)).toEqual([]);
  });

  it("concurrent rubric edits and markers applying the item leave no mark on an old score", async () => {
    const { canvas, batch } = await markedPaper(12);
    const owner = as(school.teacher);
    const item = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Method", points: 1 } });
    const other = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Answer", points: 1 } });
    const markers = [school.teacher, school.head];
    const saves = batch.submissions.flatMap((submission, index) =>
      [0, 1, 2].map((round) => async () => {
        const items = (index + round) % 3 === 0 ? [other.id] : [item.id, other.id];
        await applyItems(markers[(index + round) % markers.length]!, submission, canvas.ids.q2, items);
      }),
    );
    const edits = [0.5, 1.5, 2, 2.5, 3, 0].map((points) => async () => {
      await owner.exam.rubric.edit({ item_id: item.id, body: { points } });
    });
    // Interleaved: every edit is sent among the saves, all in flight at once.
    const all = saves.flatMap((save, index) => (index % 6 === 0 && edits.length > 0 ? [edits.shift()!, save] : [save]));
    await Promise.all([...all, ...edits].map((run) => run()));
    expect(await rubricMarksOffTheirSum(batch.id)).toEqual([]);
    const marks = await storedMarks(batch.id);
    expect(marks).toHaveLength(12);
    // Each is made of items (so the check above had twelve marks to check), worth the item's last points.
    const last = (await owner.exam.templates.get({ template_id: batch.template_id })).rubric_items.find((candidate) => candidate.id === item.id)!.points;
    for (const mark of marks) {
      const items = (mark.mark_scheme_detail as { items: string[] }).items;
      expect(Number(mark.awarded_marks)).toBe(Math.min(5, 1 + (items.includes(item.id) ? last : 0)));
    }
  });
});
