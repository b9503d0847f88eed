/**
 * Answers read from the scan (issue 36), on the server: readings kept per script and area, the
 * automatic marks they write (ticks, blanks), and the exam.answers operations over them — groups of
 * identical answers, one script's answers, a group's answer set at once (all or nothing), the blanks'
 * zeros, an automatic mark undone, the batch's setting — through createCaller on a real database. The
 * readings are written as the reading job writes them (replaceScriptReadings, as the service); the job
 * itself, from a pen-answered scanned pile, is tests/exam-answers-pile.test.ts.
 */
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { examMarkEntries, examSubmissions } from "../server/db/schema";
import { replaceScriptReadings } from "../server/exam/answers/automatic-marks";
import { renderResultsCsv } from "../server/exam/results-csv";
import type { AreasReading, BoxReading } from "../server/exam/ticks/reading";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents } from "./support/exam-fixtures";
import { releaseForTest } from "./support/release-fixtures";
import { type School, createSchool } from "./support/fixtures";

const LABELS = ["A", "B", "C", "D"];

/** A template of two tick questions on page 1 (t1: B is right, 2 marks; t2: A and C, 1 mark) and a written one on page 2 (w, 3 marks). */
function tickCanvas() {
  const ids = { t1: crypto.randomUUID(), t2: crypto.randomUUID(), w: crypto.randomUUID() };
  const areas = { t1: crypto.randomUUID(), t2: crypto.randomUUID(), w: crypto.randomUUID() };
  const boxes = (top: number) => LABELS.map((label, index) => ({ label, x: 0.15 + index * 0.1, y: top + 0.01, width: 0.03, height: 0.02, shape: "square" as const }));
  const questions = [
    { id: ids.t1, parent_id: null, label: "1", order: 0, max_marks: 2, answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: ["B"], allow_multiple: false }, spec_ref: null, is_container: false },
    { id: ids.t2, parent_id: null, label: "2", order: 1, max_marks: 1, answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: ["A", "C"], allow_multiple: true }, spec_ref: null, is_container: false },
    { id: ids.w, parent_id: null, label: "3", order: 2, max_marks: 3, answer_type: "text", mark_scheme: null, spec_ref: null, is_container: false },
  ];
  const response_areas = [
    { id: areas.t1, question_id: ids.t1, page: 1, kind: "response" as const, response_form: "box", x: 0.1, y: 0.2, width: 0.5, height: 0.05, tick_boxes: boxes(0.2) },
    { id: areas.t2, question_id: ids.t2, page: 1, kind: "response" as const, response_form: "box", x: 0.1, y: 0.4, width: 0.5, height: 0.05, tick_boxes: boxes(0.4) },
    { id: areas.w, question_id: ids.w, page: 2, kind: "response" as const, response_form: "box", x: 0.1, y: 0.3, width: 0.7, height: 0.3 },
  ];
  return { ids, areas, canvas: { questions, response_areas, boundaries: [] } };
}

type Canvas = ReturnType<typeof tickCanvas>;

const boxesFor = (answer: string[] | null): BoxReading[] =>
  LABELS.map((label) => ({ label, state: answer === null && label === "A" ? "uncertain" : answer?.includes(label) ? "ticked" : "empty", ink: answer?.includes(label) ? 0.2 : 0.01, filled: false }));

/** What readAreas would answer for a script: t1's and t2's answers (null: undecided), w's blank state. */
function pages(canvas: Canvas, t1: string[] | null, t2: string[] | null, w: "blank" | "written" | "uncertain") {
  const page1: AreasReading = {
    alignment: { by: "code", turn: 0 },
    tickAreas: [
      { id: canvas.areas.t1, answer: t1, boxes: boxesFor(t1) },
      { id: canvas.areas.t2, answer: t2, boxes: boxesFor(t2) },
    ],
    writtenAreas: [],
  };
  const page2: AreasReading = { alignment: { by: "content", turn: 0 }, tickAreas: [], writtenAreas: [{ id: canvas.areas.w, blank: w, ink: w === "blank" ? 0 : 0.05 }] };
  return [
    { pageNumber: 1, reading: page1 },
    { pageNumber: 2, reading: page2 },
  ];
}

describeOnEachDatabase("answers read from the scan: readings, automatic marks, groups and the marker's decisions", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const db = () => database().db;

  beforeAll(async () => {
    school = await createSchool(db(), "Answers");
    otherSchool = await createSchool(db(), "Elsewhere");
  });

  async function tickBatch({ students = 4, anonymous = false } = {}) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Science with ticks", page_count: 2 });
    const fixture = tickCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: fixture.canvas });
    const roster = await createClassWithStudents(db(), school, students);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, anonymous });
    const scripts = (await teacher.exam.batches.queue({ batch_id: batch.id })).submissions.map((submission) => submission.id);
    return { batch, scripts, names: roster.students.map((student) => student.full_name), ...fixture };
  }

  const read = (submissionId: string, readings: ReturnType<typeof pages>) => asService(db(), (tx) => replaceScriptReadings(tx, submissionId, readings));
  const markOf = async (submissionId: string, questionId: string) =>
    (
      await asService(db(), (tx) =>
        tx.select().from(examMarkEntries).where(and(eq(examMarkEntries.submission_id, submissionId), eq(examMarkEntries.question_id, questionId))),
      )
    )[0];
  const statusOf = async (submissionId: string) => (await asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId))))[0]!.status;

  it("writes a decided tick question's mark as read from the ticks, none for an undecided one, and groups the scripts by answer", async () => {
    const fixture = await tickBatch();
    const { scripts, ids } = fixture;
    await read(scripts[0]!, pages(fixture, ["B"], ["A", "C"], "written"));
    await read(scripts[1]!, pages(fixture, ["B"], null, "blank"));
    await read(scripts[2]!, pages(fixture, ["C"], ["A"], "blank"));
    await read(scripts[3]!, pages(fixture, null, [], "uncertain"));

    const right = await markOf(scripts[0]!, ids.t1);
    expect(right).toMatchObject({ marked_by: "ticks", awarded_marks: "2.00", confirmed: true, marked_by_user_id: null, mark_scheme_detail: { type: "multiple_choice", answer: ["B"] } });
    expect(await markOf(scripts[0]!, ids.t2)).toMatchObject({ marked_by: "ticks", awarded_marks: "1.00" });
    expect(await markOf(scripts[2]!, ids.t1)).toMatchObject({ marked_by: "ticks", awarded_marks: "0.00", mark_scheme_detail: { type: "multiple_choice", answer: ["C"] } });
    expect(await markOf(scripts[1]!, ids.t2)).toBeUndefined();
    expect(await markOf(scripts[3]!, ids.t1)).toBeUndefined();
    // No zero for a blank while the batch's setting is off.
    expect(await markOf(scripts[1]!, ids.w)).toBeUndefined();
    // Automatic marks move the status as a mark write does: being marked, not complete (the written question has none).
    expect(await statusOf(scripts[0]!)).toBe("marking");

    const answers = await as(school.teacher).exam.answers.forBatch({ batch_id: fixture.batch.id });
    expect(answers.auto_zero_blanks).toBe(false);
    expect(answers.questions.map((question) => [question.label, question.kind])).toEqual([
      ["1", "ticks"],
      ["2", "ticks"],
      ["3", "written"],
    ]);
    const q1 = answers.questions[0]!;
    expect(q1.box_labels).toEqual(LABELS);
    expect(q1.correct).toEqual(["B"]);
    expect(q1.groups.map((group) => [group.key, group.marks, group.scripts.length])).toEqual([
      ["B", 2, 2],
      ["C", 0, 1],
      ["undecided", null, 1],
    ]);
    expect(q1.groups[0]!.scripts[0]).toMatchObject({ read_answer: ["B"], marked_by: "ticks", awarded_marks: 2, teacher_answer: null, blank: null });
    expect(q1.groups[0]!.scripts[0]!.crop).toEqual({ page: 1, x: expect.closeTo(0.06, 6), y: expect.closeTo(0.16, 6), width: expect.closeTo(0.58, 6), height: expect.closeTo(0.13, 6) });
    const q2 = answers.questions[1]!;
    expect(q2.groups.map((group) => group.key).sort()).toEqual(["A", "A+C", "none", "undecided"]);
    const q3 = answers.questions[2]!;
    expect(q3.groups.map((group) => [group.key, group.scripts.length])).toEqual([
      ["written", 2],
      ["blank", 2],
    ]);

    const one = await as(school.teacher).exam.answers.forSubmission({ submission_id: scripts[1]! });
    expect(one.answers.map((answer) => [answer.question_id, answer.read_answer, answer.blank, answer.marked_by])).toEqual([
      [ids.t1, ["B"], null, "ticks"],
      [ids.t2, null, null, null],
      [ids.w, null, "blank", null],
    ]);
  });

  it("never overwrites a teacher's mark on a re-read, removes an automatic mark whose answer became undecided, and never re-writes one the marker undid", async () => {
    const fixture = await tickBatch({ students: 2 });
    const { scripts, ids } = fixture;
    await read(scripts[0]!, pages(fixture, ["B"], ["A"], "written"));
    await read(scripts[1]!, pages(fixture, ["B"], ["A"], "written"));
    // The teacher marks q1 of script 0 by hand.
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[0]!, question_id: ids.t1, awarded_marks: 1, confirmed: true } });
    await read(scripts[0]!, pages(fixture, ["C"], null, "written"));
    expect(await markOf(scripts[0]!, ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "1.00", marked_by_user_id: school.teacher.id });
    // t2 became undecided: its automatic mark is gone.
    expect(await markOf(scripts[0]!, ids.t2)).toBeUndefined();

    // Script 1: the marker undoes q1's automatic mark; a re-read does not write it again.
    expect(await as(school.teacher).exam.answers.undoAutomaticMark({ submission_id: scripts[1]!, question_id: ids.t1 })).toEqual({ removed: true });
    expect(await markOf(scripts[1]!, ids.t1)).toBeUndefined();
    await read(scripts[1]!, pages(fixture, ["B"], ["A"], "written"));
    expect(await markOf(scripts[1]!, ids.t1)).toBeUndefined();
    expect(await markOf(scripts[1]!, ids.t2)).toMatchObject({ marked_by: "ticks" });
    // A teacher's mark is not automatic: nothing to undo.
    expect(await as(school.teacher).exam.answers.undoAutomaticMark({ submission_id: scripts[0]!, question_id: ids.t1 })).toEqual({ removed: false });
    expect(await markOf(scripts[0]!, ids.t1)).toMatchObject({ marked_by: "teacher" });
    // A colleague who is not a writer of the batch may not undo.
    await expect(as(school.otherTeacher).exam.answers.undoAutomaticMark({ submission_id: scripts[1]!, question_id: ids.t2 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await markOf(scripts[1]!, ids.t2)).toMatchObject({ marked_by: "ticks" });
  });

  it("sets a group's answer as teacher marks, all or nothing: a script of another batch in the list and nothing is written", async () => {
    const fixture = await tickBatch({ students: 3 });
    const other = await tickBatch({ students: 1 });
    const { scripts, ids } = fixture;
    for (const script of scripts) await read(script, pages(fixture, null, ["A"], "written"));
    const teacher = as(school.teacher);

    await expect(teacher.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t1, submission_ids: [...scripts, other.scripts[0]!], answer: ["B"] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("not in this batch; nothing was marked"),
    });
    for (const script of scripts) expect(await markOf(script, ids.t1)).toBeUndefined();
    // A box the question does not have.
    await expect(teacher.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t1, submission_ids: scripts, answer: ["E"] })).rejects.toMatchObject({ code: "BAD_REQUEST" });

    expect(await teacher.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t1, submission_ids: scripts.slice(0, 2), answer: ["B"] })).toEqual({ marked: 2 });
    expect(await teacher.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t1, submission_ids: [scripts[2]!], answer: ["D"] })).toEqual({ marked: 1 });
    expect(await markOf(scripts[0]!, ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "2.00", marked_by_user_id: school.teacher.id, mark_scheme_detail: { type: "multiple_choice", answer: ["B"] } });
    expect(await markOf(scripts[2]!, ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "0.00" });
    // A teacher's answer over an automatic mark: t2 was read A (0 marks), the teacher says A and C.
    expect(await teacher.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t2, submission_ids: [scripts[0]!], answer: ["C", "A"] })).toEqual({ marked: 1 });
    expect(await markOf(scripts[0]!, ids.t2)).toMatchObject({ marked_by: "teacher", awarded_marks: "1.00", mark_scheme_detail: { type: "multiple_choice", answer: ["A", "C"] } });

    // The groups now follow the teacher's answers.
    const q1 = (await teacher.exam.answers.forBatch({ batch_id: fixture.batch.id })).questions[0]!;
    expect(q1.groups.map((group) => [group.key, group.scripts.length])).toEqual([
      ["B", 2],
      ["D", 1],
    ]);
    expect(q1.groups[0]!.scripts.every((script) => script.marked_by === "teacher" && script.teacher_answer?.join() === "B" && script.read_answer === null)).toBe(true);

    // A marker limited to script 1 cannot set a group that holds script 2: nothing is written.
    await teacher.exam.markers.invite({ batch_id: fixture.batch.id, body: { user_id: school.otherTeacher.id } });
    const numbers = await asService(db(), (tx) => tx.select({ id: examSubmissions.id, n: examSubmissions.script_number }).from(examSubmissions).where(eq(examSubmissions.batch_id, fixture.batch.id)));
    const first = Math.min(...numbers.map((row) => row.n));
    await teacher.exam.markers.setAllocations({ batch_id: fixture.batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ first_script: first, last_script: first }] } });
    await expect(
      as(school.otherTeacher).exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: ids.t2, submission_ids: numbers.map((row) => row.id), answer: ["A"] }),
    ).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("not in your allocation") });
    for (const { id } of numbers) expect((await markOf(id, ids.t2))?.marked_by_user_id ?? null).not.toBe(school.otherTeacher.id);
  });

  it("gives every confident blank 0 with one call, and the batch's setting gives and takes back the automatic zeros", async () => {
    const fixture = await tickBatch({ students: 3 });
    const { scripts, ids, batch } = fixture;
    await read(scripts[0]!, pages(fixture, ["B"], ["A", "C"], "blank"));
    await read(scripts[1]!, pages(fixture, ["B"], ["A", "C"], "uncertain"));
    await read(scripts[2]!, pages(fixture, ["B"], ["A", "C"], "blank"));
    const teacher = as(school.teacher);

    // The owner's setting: a colleague may not change it.
    await expect(as(school.otherTeacher).exam.answers.setAutoZeroBlanks({ batch_id: batch.id, auto_zero_blanks: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await teacher.exam.answers.setAutoZeroBlanks({ batch_id: batch.id, auto_zero_blanks: true })).toEqual({ auto_zero_blanks: true });
    expect(await markOf(scripts[0]!, ids.w)).toMatchObject({ marked_by: "blank", awarded_marks: "0.00", confirmed: true });
    expect(await markOf(scripts[1]!, ids.w)).toBeUndefined();
    // Every question of script 0 has a confirmed mark now, from the ticks and the blank: complete.
    expect(await statusOf(scripts[0]!)).toBe("complete");
    expect((await teacher.exam.answers.forBatch({ batch_id: batch.id })).auto_zero_blanks).toBe(true);
    // A re-read keeps the setting's zero.
    await read(scripts[2]!, pages(fixture, ["B"], ["A", "C"], "blank"));
    expect(await markOf(scripts[2]!, ids.w)).toMatchObject({ marked_by: "blank" });

    expect(await teacher.exam.answers.setAutoZeroBlanks({ batch_id: batch.id, auto_zero_blanks: false })).toEqual({ auto_zero_blanks: false });
    expect(await markOf(scripts[0]!, ids.w)).toBeUndefined();
    expect(await statusOf(scripts[0]!)).toBe("marking");

    // The marker's key: every confident blank without a teacher's mark gets 0, as the teacher's.
    expect(await teacher.exam.answers.zeroBlanks({ batch_id: batch.id, question_id: ids.w })).toEqual({ marked: 2 });
    expect(await markOf(scripts[0]!, ids.w)).toMatchObject({ marked_by: "teacher", awarded_marks: "0.00", marked_by_user_id: school.teacher.id });
    expect(await markOf(scripts[1]!, ids.w)).toBeUndefined();
    // Zeros are for written questions.
    await expect(teacher.exam.answers.zeroBlanks({ batch_id: batch.id, question_id: ids.t1 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // Turned on again, the teacher's zeros stay the teacher's.
    await teacher.exam.answers.setAutoZeroBlanks({ batch_id: batch.id, auto_zero_blanks: true });
    expect(await markOf(scripts[0]!, ids.w)).toMatchObject({ marked_by: "teacher" });
  });

  it("counts automatic marks as marks: a script marked only from its ticks and a blank is complete, and its total and CSV row are right", async () => {
    const fixture = await tickBatch({ students: 2 });
    const { scripts, batch } = fixture;
    const teacher = as(school.teacher);
    await teacher.exam.answers.setAutoZeroBlanks({ batch_id: batch.id, auto_zero_blanks: true });
    await read(scripts[0]!, pages(fixture, ["B"], ["A", "C"], "blank"));
    await read(scripts[1]!, pages(fixture, ["C"], ["A", "C"], "written"));
    const results = await teacher.exam.batches.results({ batch_id: batch.id });
    const first = results.results.find((result) => result.submission_id === scripts[0]);
    const second = results.results.find((result) => result.submission_id === scripts[1]);
    expect(first).toMatchObject({ status: "complete", total: 3, marks: { [fixture.ids.t1]: 2, [fixture.ids.t2]: 1, [fixture.ids.w]: 0 } });
    expect(second).toMatchObject({ status: "marking", total: 1 });
    const csv = renderResultsCsv(results);
    const row = csv.split("\r\n").find((line) => line.includes(first!.student_id!));
    expect(row).toMatch(/,2,1,0,3$/);
  });

  it("makes a read mark the teacher's when a moderator reconciles it", async () => {
    const fixture = await tickBatch({ students: 1 });
    const script = fixture.scripts[0]!;
    await asService(db(), (tx) => tx.update(examSubmissions).set({ scan_url: `exam-submissions/${fixture.batch.id}/${script}.pdf` }).where(eq(examSubmissions.id, script)));
    await read(script, pages(fixture, ["B"], ["A"], "written"));
    expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "ticks", marked_by_user_id: null });
    await as(school.teacher).exam.moderation.setSample({ batch_id: fixture.batch.id, body: { submission_ids: [script], tolerance: 0 } });
    await as(school.head).exam.moderation.saveSecondMark({ submission_id: script, body: { question_id: fixture.ids.t1, awarded_marks: 0 } });
    await as(school.teacher).exam.moderation.reconcile({ submission_id: script, body: { question_id: fixture.ids.t1, final_marks: 1 } });
    expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "1.00", marked_by_user_id: school.teacher.id });
    // A re-read leaves the reconciled mark alone.
    await read(script, pages(fixture, ["C"], ["A"], "written"));
    expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "1.00" });
  });

  it("makes a read mark the teacher's when a review request's answer changes it", async () => {
    const fixture = await tickBatch({ students: 1 });
    const script = fixture.scripts[0]!;
    const [row] = await asService(db(), (tx) =>
      tx.update(examSubmissions).set({ scan_url: `exam-submissions/${fixture.batch.id}/${script}.pdf` }).where(eq(examSubmissions.id, script)).returning({ student_id: examSubmissions.student_id }),
    );
    await read(script, pages(fixture, ["C"], ["A"], "written"));
    expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "ticks", awarded_marks: "0.00" });
    await releaseForTest(db(), fixture.batch.id, { reviewsUntil: new Date(Date.now() + 7 * 24 * 3600 * 1000) });
    const request = await as({ id: row!.student_id! }).student.reviews.request({ submission_id: script, question_id: fixture.ids.t1, reason: "I ticked B, then crossed it out." });
    await as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 2, reply: "Yes: B it is." });
    expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "teacher", awarded_marks: "2.00", marked_by_user_id: school.teacher.id });
  });

  it("names no student in any answers reply of an anonymous batch", async () => {
    const fixture = await tickBatch({ students: 2, anonymous: true });
    for (const script of fixture.scripts) await read(script, pages(fixture, ["B"], ["A"], "blank"));
    const replies = JSON.stringify([
      await as(school.teacher).exam.answers.forBatch({ batch_id: fixture.batch.id }),
      ...(await Promise.all(fixture.scripts.map((script) => as(school.teacher).exam.answers.forSubmission({ submission_id: script })))),
    ]);
    for (const name of fixture.names) expect(replies).not.toContain(name);
    expect(replies).toMatch(/Script \d+/);
  });

  describe("another school", () => {
    it("finds nothing of a batch, script or question of ours, on every operation", async () => {
      const fixture = await tickBatch({ students: 1 });
      const script = fixture.scripts[0]!;
      await read(script, pages(fixture, ["B"], ["A"], "blank"));
      const stranger = as(otherSchool.teacher);
      const notFound = { code: "NOT_FOUND" };
      await expect(stranger.exam.answers.forBatch({ batch_id: fixture.batch.id })).rejects.toMatchObject(notFound);
      await expect(stranger.exam.answers.forSubmission({ submission_id: script })).rejects.toMatchObject(notFound);
      await expect(stranger.exam.answers.setAnswer({ batch_id: fixture.batch.id, question_id: fixture.ids.t1, submission_ids: [script], answer: ["A"] })).rejects.toMatchObject(notFound);
      await expect(stranger.exam.answers.zeroBlanks({ batch_id: fixture.batch.id, question_id: fixture.ids.w })).rejects.toMatchObject(notFound);
      await expect(stranger.exam.answers.undoAutomaticMark({ submission_id: script, question_id: fixture.ids.t1 })).rejects.toMatchObject(notFound);
      await expect(stranger.exam.answers.setAutoZeroBlanks({ batch_id: fixture.batch.id, auto_zero_blanks: true })).rejects.toMatchObject(notFound);
      expect(await markOf(script, fixture.ids.t1)).toMatchObject({ marked_by: "ticks" });
      // A student of our own school reads none of it either.
      await expect(as(school.student).exam.answers.forSubmission({ submission_id: script })).rejects.toMatchObject({ code: expect.stringMatching(/NOT_FOUND|FORBIDDEN/) });
    });
  });
});
