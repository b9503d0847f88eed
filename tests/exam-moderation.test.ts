import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { GET as moderationRoute } from "../app/api/exam/batches/[batch_id]/moderation/route";
import { GET as agreementRoute } from "../app/api/exam/batches/[batch_id]/moderation/agreement/route";
import { GET as differencesRoute } from "../app/api/exam/batches/[batch_id]/moderation/differences/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/moderation/queue/route";
import { PUT as sampleRoute } from "../app/api/exam/batches/[batch_id]/moderation/sample/route";
import { POST as reopenRoute } from "../app/api/exam/batches/[batch_id]/reopen/route";
import { POST as signOffRoute } from "../app/api/exam/batches/[batch_id]/sign-off/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { POST as reconcileRoute } from "../app/api/exam/submissions/[submission_id]/reconcile/route";
import { POST as secondMarkRoute } from "../app/api/exam/submissions/[submission_id]/second-marks/route";
import { asUser } from "../server/db/rls";
import { signOffBatch } from "../server/exam/moderation/sign-off";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileNumber, hostileString } from "./support/hostile-input";

type Person = School["teacher"];

/** A mark as a number in a reply, not the same digits inside a timestamp ("…:34.5…Z") or an id. */
const numberIn = (value: number) => new RegExp(`(?<![0-9.])${String(value).replace(".", "\\.")}(?![0-9])`);

describeOnEachDatabase("moderation: sample, blind second marks, agreement, reconcile, sign-off", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Moderation");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  const FIRST_COMMENT = "first-marker-comment-7f3a";

  /** A batch of five scripts owned by the teacher, marked on 2 (out of 5) and 1a (out of 3). */
  async function markedBatch() {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Moderated paper", page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 5);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    // The colleague first-marks some scripts: only the owner, a department head or an invited marker marks (batch-gate.ts).
    await teacher.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    await teacher.exam.markers.setAllocations({ batch_id: batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ first_script: 1 }] } });
    const scripts = (await teacher.exam.batches.queue({ batch_id: batch.id })).submissions.map((submission) => submission.id);
    const mark = (marker: Person, submissionId: string, questionId: string, value: number) =>
      as(marker).exam.marks.upsert({
        mark_id: crypto.randomUUID(),
        body: { submission_id: submissionId, question_id: questionId, awarded_marks: value, comment: FIRST_COMMENT, confirmed: true },
      });
    return { batch, canvas, scripts, mark, studentNames: roster.students.map((student) => student.full_name) };
  }

  /**
   * The fixed data set. Question 2 (out of 5), scripts 0..4 in this order: first 2, 3, 1, 4, 0 (the
   * teacher on 0–2, the colleague on 3–4); second 2, 2, 2, 4, 1 (the colleague on 0–2, the teacher on
   * 3–4). Question 1a (out of 3), scripts 0..2, first by the teacher 3, 3, 0; second by the colleague 3, 1, 0.
   */
  async function moderatedBatch(tolerance = 0) {
    const fixture = await markedBatch();
    const { batch, canvas, scripts, mark } = fixture;
    const firstQ2 = [2, 3, 1, 4, 0];
    const secondQ2 = [2, 2, 2, 4, 1];
    for (const [index, value] of firstQ2.entries()) await mark(index < 3 ? school.teacher : school.otherTeacher, scripts[index]!, canvas.ids.q2, value);
    for (const [index, value] of [3, 3, 0].entries()) await mark(school.teacher, scripts[index]!, canvas.ids.q1a, value);
    await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: scripts, tolerance } });
    for (const [index, value] of secondQ2.entries()) {
      await as(index < 3 ? school.otherTeacher : school.teacher).exam.moderation.saveSecondMark({
        submission_id: scripts[index]!,
        body: { question_id: canvas.ids.q2, awarded_marks: value },
      });
    }
    for (const [index, value] of [3, 1, 0].entries()) {
      await as(school.otherTeacher).exam.moderation.saveSecondMark({ submission_id: scripts[index]!, body: { question_id: canvas.ids.q1a, awarded_marks: value } });
    }
    return fixture;
  }

  it("computes agreement per question and per first marker as computed by hand", async () => {
    const { batch, canvas } = await moderatedBatch();
    const reply = await callRest(agreementRoute, { token: school.head.token, params: { batch_id: batch.id } });
    expect(reply.status).toBe(200);
    const agreement = await reply.json();
    expect(agreement.tolerance).toBe(0);
    const [q1a, q2] = agreement.questions;
    expect(q2).toMatchObject({ question_id: canvas.ids.q2, label: "2", max_marks: 5, n: 5 });
    // d = 0, −1, 1, 0, 1: mean 0.2, mean |d| 0.6, 2 of 5 within 0.
    expect(q2.mean_difference).toBeCloseTo(0.2, 9);
    expect(q2.mean_absolute_difference).toBeCloseTo(0.6, 9);
    expect(q2.within_tolerance).toBeCloseTo(0.4, 9);
    // E = var(first) 2 + var(second) 0.96 + (2 − 2.2)² = 3; mean d² = 0.6; κ = 1 − 0.6/3 = 0.8.
    expect(q2.kappa).toBeCloseTo(0.8, 9);
    // In marking order d = 0, −1, 1, 0, 1: slope 3/10 per script → 3 per 10 scripts.
    expect(q2.drift_per_10).toBeCloseTo(3, 9);
    expect(q1a).toMatchObject({ question_id: canvas.ids.q1a, max_marks: 3, n: 3 });
    // d = 0, −2, 0: mean −2/3, mean |d| 2/3, 2 of 3 within 0.
    expect(q1a.mean_difference).toBeCloseTo(-2 / 3, 9);
    expect(q1a.mean_absolute_difference).toBeCloseTo(2 / 3, 9);
    expect(q1a.within_tolerance).toBeCloseTo(2 / 3, 9);
    // Firsts 3, 3, 0: mean 2, var 2. Seconds 3, 1, 0: mean 4/3, var 14/9. (2 − 4/3)² = 4/9. E = 4; mean d² = 4/3; κ = 2/3.
    expect(q1a.kappa).toBeCloseTo(2 / 3, 9);
    expect(q1a.drift_per_10).toBeCloseTo(0, 9);

    const byMarker = Object.fromEntries(agreement.markers.map((marker: { marker_id: string }) => [marker.marker_id, marker]));
    const teacher = byMarker[school.teacher.id];
    const colleague = byMarker[school.otherTeacher.id];
    // The teacher's six pairs: d = 0, −1, 1 (2) and 0, −2, 0 (1a): mean −1/3; κ only per question.
    expect(teacher).toMatchObject({ marker_name: school.teacher.full_name, n: 6, kappa: null });
    expect(teacher.mean_difference).toBeCloseTo(-1 / 3, 9);
    expect(teacher.kappa_note).toMatch(/per question/);
    const teacherQ2 = teacher.questions.find((question: { question_id: string }) => question.question_id === canvas.ids.q2);
    // Firsts 2, 3, 1 (var 2/3), seconds 2, 2, 2 (var 0), equal means: E = 2/3 = mean d²: κ = 0. Drift: d 0, −1, 1 → slope 1/2 → 5 per 10.
    expect(teacherQ2.kappa).toBeCloseTo(0, 9);
    expect(teacherQ2.drift_per_10).toBeCloseTo(5, 9);
    // The colleague's (4,4) (0,1): means 2 and 2.5, vars 4 and 2.25, E = 4 + 2.25 + 0.25 = 6.5; mean d² = 0.5; κ = 12/13.
    expect(colleague).toMatchObject({ n: 2, mean_difference: 0.5, within_tolerance: 0.5 });
    expect(colleague.kappa).toBeCloseTo(12 / 13, 9);
    expect((await as(school.teacher).exam.moderation.agreement({ batch_id: batch.id })).questions[1]!.kappa).toBeCloseTo(0.8, 9);
  });

  it("keeps the second marking blind: the queue carries no first mark, comment, marker or name", async () => {
    const { batch, canvas, scripts, mark, studentNames } = await markedBatch();
    await mark(school.teacher, scripts[0]!, canvas.ids.q2, 4.5);
    await mark(school.teacher, scripts[1]!, canvas.ids.q2, 3.5);
    await mark(school.otherTeacher, scripts[1]!, canvas.ids.q1a, 2.5);
    await as(school.teacher).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: scripts.slice(0, 2) } });
    const reply = await callRest(queueRoute, { token: school.otherTeacher.token, params: { batch_id: batch.id } });
    expect(reply.status).toBe(200);
    const text = await reply.text();
    for (const leak of [FIRST_COMMENT, school.teacher.id, school.teacher.full_name, ...studentNames]) expect(text).not.toContain(leak);
    for (const value of [4.5, 3.5]) expect(text).not.toMatch(numberIn(value));
    const queue = JSON.parse(text);
    // The colleague second-marks the teacher's two marks, not their own mark of 1a.
    expect(queue.scripts.map((script: { questions: { question_id: string }[] }) => script.questions.map((question) => question.question_id))).toEqual([
      [canvas.ids.q2],
      [canvas.ids.q2],
    ]);
    expect(Object.keys(queue.scripts[0].questions[0]).sort()).toEqual(["label", "max_marks", "question_id", "second_marks"]);
    const saved = await callRest(secondMarkRoute, {
      method: "POST",
      token: school.otherTeacher.token,
      params: { submission_id: scripts[0]! },
      body: { question_id: canvas.ids.q2, awarded_marks: 4 },
    });
    expect(saved.status).toBe(200);
    const savedText = await saved.text();
    expect(savedText).not.toMatch(numberIn(4.5));
    expect(JSON.parse(savedText)).toMatchObject({ awarded_marks: 4, marker_id: school.otherTeacher.id });
    const afterSave = await as(school.otherTeacher).exam.moderation.queue({ batch_id: batch.id });
    expect(afterSave.scripts.find((script) => script.submission_id === scripts[0])!.questions[0]!.second_marks).toBe(4);
    // A moderator's reads show first marks of second-marked pairs only: script 1's 3.5 is still blind.
    for (const route of [agreementRoute, differencesRoute]) {
      const moderated = await callRest(route, { token: school.head.token, params: { batch_id: batch.id } });
      expect(moderated.status).toBe(200);
      expect(await moderated.text()).not.toMatch(numberIn(3.5));
    }
    expect((await as(school.head).exam.moderation.agreement({ batch_id: batch.id })).questions).toMatchObject([{ n: 1, mean_difference: -0.5 }]);

    // Never the first marker; never a second second marker; only scripts of the sample; only marked questions.
    const second = (marker: Person, submissionId: string, questionId: string, value = 1) =>
      callRest(secondMarkRoute, { method: "POST", token: marker.token, params: { submission_id: submissionId }, body: { question_id: questionId, awarded_marks: value } });
    const own = await second(school.teacher, scripts[1]!, canvas.ids.q2);
    expect(own.status).toBe(403);
    expect((await own.json()).detail).toMatch(/first mark/);
    expect((await second(school.head, scripts[0]!, canvas.ids.q2)).status).toBe(409);
    expect((await second(school.head, scripts[2]!, canvas.ids.q2)).status).toBe(409);
    expect((await second(school.head, scripts[0]!, canvas.ids.q1b)).status).toBe(409);
    const tooMany = await second(school.head, scripts[1]!, canvas.ids.q2, 6);
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).detail).toMatch(/0 to 5/);
    expect((await second(school.head, scripts[1]!, canvas.ids.q1, 1)).status).toBe(400);
    expect((await as(school.head).exam.moderation.state({ batch_id: batch.id })).second_marks).toBe(1);
  });

  it("lets only the owner or a department head pick the sample, reproducibly, and moderate", async () => {
    const { batch, canvas, scripts, mark } = await markedBatch();
    for (const submissionId of scripts.slice(0, 4)) await mark(school.teacher, submissionId, canvas.ids.q2, 2);
    for (const outsider of [school.otherTeacher, school.admin]) {
      const refused = await callRest(sampleRoute, { method: "PUT", token: outsider.token, params: { batch_id: batch.id }, body: { percent: 50 } });
      expect(refused.status).toBe(403);
      for (const route of [agreementRoute, differencesRoute]) expect((await callRest(route, { token: outsider.token, params: { batch_id: batch.id } })).status).toBe(403);
    }
    // 50 % of the four marked scripts: two, the same two each time, whoever asks.
    const first = await as(school.teacher).exam.moderation.setSample({ batch_id: batch.id, body: { percent: 50 } });
    const again = await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { percent: 50 } });
    expect(first.sample!.submission_ids).toHaveLength(2);
    expect(again.sample).toMatchObject({ submission_ids: first.sample!.submission_ids, percent: 50, tolerance: 1, chosen_by: school.head.id });
    expect(scripts.slice(0, 4)).toEqual(expect.arrayContaining(first.sample!.submission_ids));
    // 30 % of 4 is 1.2: two scripts (rounded up).
    expect((await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { percent: 30, tolerance: 0.5 } })).sample).toMatchObject({ tolerance: 0.5 });
    expect((await as(school.head).exam.moderation.state({ batch_id: batch.id })).sample!.submission_ids).toHaveLength(2);
    // A script without marks, or of another batch, cannot be chosen.
    const unmarked = await callRest(sampleRoute, { method: "PUT", token: school.teacher.token, params: { batch_id: batch.id }, body: { submission_ids: [scripts[4]] } });
    expect(unmarked.status).toBe(400);
    expect(await unmarked.json()).toEqual({ detail: "submission_ids: every script chosen must be one of this batch's scripts with a mark" });
    const both = await callRest(sampleRoute, { method: "PUT", token: school.teacher.token, params: { batch_id: batch.id }, body: { percent: 10, submission_ids: [scripts[0]] } });
    expect(both.status).toBe(400);
    const state = await callRest(moderationRoute, { token: school.otherTeacher.token, params: { batch_id: batch.id } });
    expect(await state.json()).toMatchObject({ can_moderate: false, can_sign_off: false, sign_off: null });
  });

  it("sends differences above the tolerance to reconcile: the moderator's final mark becomes the mark, both marks kept", async () => {
    const { batch, canvas, scripts } = await moderatedBatch(0);
    const differences = await as(school.head).exam.moderation.differences({ batch_id: batch.id });
    // |d| > 0: 2 on scripts 1, 2, 4 and 1a on script 1, in script order then question order.
    expect(differences.differences.map((row) => [row.submission_id, row.label, row.first_marks, row.second_marks, row.difference])).toEqual(
      expect.arrayContaining([
        [scripts[1], "2", 3, 2, -1],
        [scripts[2], "2", 1, 2, 1],
        [scripts[4], "2", 0, 1, 1],
        [scripts[1], "1a", 3, 1, -2],
      ]),
    );
    expect(differences.differences).toHaveLength(4);
    const refused = await callRest(reconcileRoute, {
      method: "POST",
      token: school.otherTeacher.token,
      params: { submission_id: scripts[1]! },
      body: { question_id: canvas.ids.q1a, final_marks: 2 },
    });
    expect(refused.status).toBe(403);
    const reconciled = await as(school.head).exam.moderation.reconcile({ submission_id: scripts[1]!, body: { question_id: canvas.ids.q1a, final_marks: 2 } });
    expect(reconciled).toMatchObject({ first_marks: 3, first_marker_id: school.teacher.id, second_marks: 1, final_marks: 2, reconciled_by: school.head.id });
    // A second reconcile changes the final mark only; the first mark before reconciling stays 3.
    expect(await as(school.teacher).exam.moderation.reconcile({ submission_id: scripts[1]!, body: { question_id: canvas.ids.q1a, final_marks: 1.5 } })).toMatchObject({
      first_marks: 3,
      final_marks: 1.5,
    });
    const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[1]! });
    expect(marks.marks.find((entry) => entry.question_id === canvas.ids.q1a)).toMatchObject({ awarded_marks: 1.5, comment: FIRST_COMMENT, confirmed: true });
    // The statistics still compare the first mark as it was: κ of 1a is 2/3.
    const agreement = await as(school.head).exam.moderation.agreement({ batch_id: batch.id });
    expect(agreement.questions.find((question) => question.question_id === canvas.ids.q1a)!.kappa).toBeCloseTo(2 / 3, 9);
    // Reconciled: no more second marking of it; a pair without a second mark cannot be reconciled.
    await expect(as(school.otherTeacher).exam.moderation.saveSecondMark({ submission_id: scripts[1]!, body: { question_id: canvas.ids.q1a, awarded_marks: 2 } })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(as(school.head).exam.moderation.reconcile({ submission_id: scripts[3]!, body: { question_id: canvas.ids.q1a, final_marks: 1 } })).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("reads one tolerance for the differences, the agreement and the sign-off's warning, whatever the sample sets", async () => {
    const { batch, canvas, scripts } = await moderatedBatch(0);
    const head = as(school.head);
    // second − first of every pair (script order): question 2, then 1a on scripts 0..2.
    const q2 = [0, -1, 1, 0, 1];
    const all = [...q2, 0, -2, 0];
    const { seed, cases } = fuzzSettings(6);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 300 }), async (hundredths) => {
        const tolerance = hundredths / 100;
        await head.exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: scripts, tolerance } });
        const above = all.filter((difference) => Math.abs(difference) > tolerance).length;
        const differences = await head.exam.moderation.differences({ batch_id: batch.id });
        expect({ tolerance: differences.tolerance, above: differences.differences.length }).toEqual({ tolerance, above });
        expect((await head.exam.moderation.state({ batch_id: batch.id })).before_sign_off.unreconciled_differences).toBe(above);
        const agreement = await head.exam.moderation.agreement({ batch_id: batch.id });
        expect(agreement.questions.find((question) => question.question_id === canvas.ids.q2)!.within_tolerance).toBe(
          q2.filter((difference) => Math.abs(difference) <= tolerance).length / q2.length,
        );
      }),
      { seed, numRuns: cases, examples: [[0], [100], [199], [200]] },
    );
    // A reconciled difference stays in the list and leaves the warning.
    await head.exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: scripts, tolerance: 0 } });
    await head.exam.moderation.reconcile({ submission_id: scripts[1]!, body: { question_id: canvas.ids.q1a, final_marks: 2 } });
    expect((await head.exam.moderation.differences({ batch_id: batch.id })).differences).toHaveLength(4);
    expect((await head.exam.moderation.state({ batch_id: batch.id })).before_sign_off.unreconciled_differences).toBe(3);
  });

  it("a signed-off batch refuses marks, second marks, samples and reconciles with 409 until a head reopens it", async () => {
    const { batch, canvas, scripts } = await moderatedBatch(0);
    for (const notHead of [school.teacher, school.otherTeacher, school.admin]) {
      expect((await callRest(signOffRoute, { method: "POST", token: notHead.token, params: { batch_id: batch.id } })).status).toBe(403);
    }
    const signed = await callRest(signOffRoute, { method: "POST", token: school.head.token, params: { batch_id: batch.id } });
    expect(signed.status).toBe(200);
    expect((await signed.json()).sign_off).toMatchObject({ signed_off_by: school.head.id, signed_off_by_name: school.head.full_name });
    // Signing off again changes nothing.
    expect((await as(school.head).exam.moderation.signOff({ batch_id: batch.id })).sign_off!.signed_off_by).toBe(school.head.id);

    const markWrite = await callRest(markRoute, {
      method: "PUT",
      token: school.teacher.token,
      params: { mark_id: crypto.randomUUID() },
      body: { submission_id: scripts[0]!, question_id: canvas.ids.q2, awarded_marks: 1 },
    });
    expect(markWrite.status).toBe(409);
    expect(await markWrite.json()).toEqual({ detail: "The batch is signed off: it accepts no more marks until a department head reopens it" });
    await expect(
      as(school.otherTeacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[3]!, question_id: canvas.ids.q1b, awarded_marks: 1 } }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const secondMark = await callRest(secondMarkRoute, {
      method: "POST",
      token: school.otherTeacher.token,
      params: { submission_id: scripts[0]! },
      body: { question_id: canvas.ids.q2, awarded_marks: 1 },
    });
    expect(secondMark.status).toBe(409);
    const reconcile = await callRest(reconcileRoute, { method: "POST", token: school.head.token, params: { submission_id: scripts[1]! }, body: { question_id: canvas.ids.q2, final_marks: 2 } });
    expect(reconcile.status).toBe(409);
    const sample = await callRest(sampleRoute, { method: "PUT", token: school.head.token, params: { batch_id: batch.id }, body: { percent: 100 } });
    expect(sample.status).toBe(409);
    // Nor attendance, nor giving a scan to a student.
    await expect(as(school.teacher).exam.submissions.setAbsence({ submission_id: scripts[0]!, absent: true })).rejects.toThrow(/signed off/);
    // Reads still work.
    expect((await callRest(agreementRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).status).toBe(200);

    for (const notHead of [school.teacher, school.otherTeacher]) {
      expect((await callRest(reopenRoute, { method: "POST", token: notHead.token, params: { batch_id: batch.id } })).status).toBe(403);
    }
    const reopened = await callRest(reopenRoute, { method: "POST", token: school.head.token, params: { batch_id: batch.id } });
    expect(reopened.status).toBe(200);
    expect((await reopened.json()).sign_off).toBeNull();
    const after = await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[0]!, question_id: canvas.ids.q2, awarded_marks: 1 } });
    expect(after.awarded_marks).toBe(1);
    // It can be signed off again.
    expect((await as(school.head).exam.moderation.signOff({ batch_id: batch.id })).sign_off).not.toBeNull();
  });

  it("lets a department head who owns a batch sign it off and reopen it, as head and owner at once", async () => {
    const head = as(school.head);
    const template = await head.exam.templates.create({ title: "Head's own paper", page_count: 4 });
    await head.exam.templates.save({ template_id: template.id, body: sampleCanvas() });
    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await head.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    expect((await head.exam.moderation.state({ batch_id: batch.id })).can_sign_off).toBe(true);
    const signed = await callRest(signOffRoute, { method: "POST", token: school.head.token, params: { batch_id: batch.id } });
    expect(signed.status).toBe(200);
    expect((await signed.json()).sign_off).toMatchObject({ signed_off_by: school.head.id });
    const reopened = await callRest(reopenRoute, { method: "POST", token: school.head.token, params: { batch_id: batch.id } });
    expect(reopened.status).toBe(200);
    // Still the owner too: the owner's actions stay theirs.
    expect((await head.exam.batches.setAnonymous({ batch_id: batch.id, anonymous: true })).anonymous).toBe(true);
  });

  it("a mark sent while a sign-off is uncommitted waits for it and is refused: nothing is written into a signed-off batch", async () => {
    const { batch, canvas, scripts } = await markedBatch();
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    let signed!: () => void;
    const signedOff = new Promise<void>((resolve) => (signed = resolve));
    const signOff = asUser(database().db, school.head.id, async (tx) => {
      await signOffBatch(tx, school.head.id, { batch_id: batch.id });
      signed();
      await held;
    });
    await signedOff;
    const save = as(school.teacher)
      .exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[0]!, question_id: canvas.ids.q2, awarded_marks: 3 } })
      .then(
        () => "saved",
        (error: { code?: string }) => error.code,
      );
    // Long enough for a save that did not wait to commit before the sign-off.
    await Promise.race([save, new Promise((resolve) => setTimeout(resolve, 500))]);
    commit();
    await signOff;
    expect(await save).toBe("CONFLICT");
    const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[0]! });
    expect(marks.marks.filter((entry) => entry.question_id === canvas.ids.q2)).toEqual([]);
  });

  it("a rubric edit re-scores no mark of a signed-off batch, and the marks of the batch once reopened are re-scored by the next edit", async () => {
    const { batch, canvas, scripts } = await markedBatch();
    const owner = as(school.teacher);
    const item = await owner.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Method", points: 2 } });
    await owner.exam.marks.upsert({
      mark_id: crypto.randomUUID(),
      body: { submission_id: scripts[0]!, question_id: canvas.ids.q2, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [item.id] } },
    });
    const markOf = async () => (await owner.exam.marks.forSubmission({ submission_id: scripts[0]! })).marks.find((entry) => entry.question_id === canvas.ids.q2)!.awarded_marks;
    expect(await markOf()).toBe(2);
    await as(school.head).exam.moderation.signOff({ batch_id: batch.id });
    expect((await owner.exam.rubric.edit({ item_id: item.id, body: { points: 3 } })).marks_rescored).toBe(0);
    expect(await markOf()).toBe(2);
    await as(school.head).exam.moderation.reopen({ batch_id: batch.id });
    expect((await owner.exam.rubric.edit({ item_id: item.id, body: { points: 4 } })).marks_rescored).toBe(1);
    expect(await markOf()).toBe(4);
  });

  it("answers 404 to another school and to a student, on every moderation path", async () => {
    const { batch, canvas, scripts } = await moderatedBatch(0);
    for (const outsider of [otherSchool.head, otherSchool.teacher, otherSchool.admin, school.student]) {
      for (const route of [moderationRoute, queueRoute, agreementRoute, differencesRoute]) {
        const reply = await callRest(route, { token: outsider.token, params: { batch_id: batch.id } });
        expect(reply.status).toBe(404);
        expect(await reply.json()).toEqual({ detail: "Batch not found" });
      }
      expect((await callRest(sampleRoute, { method: "PUT", token: outsider.token, params: { batch_id: batch.id }, body: { percent: 100 } })).status).toBe(404);
      for (const route of [signOffRoute, reopenRoute]) expect((await callRest(route, { method: "POST", token: outsider.token, params: { batch_id: batch.id } })).status).toBe(404);
      const second = await callRest(secondMarkRoute, {
        method: "POST",
        token: outsider.token,
        params: { submission_id: scripts[0]! },
        body: { question_id: canvas.ids.q2, awarded_marks: 1 },
      });
      expect(second.status).toBe(404);
      const reconcile = await callRest(reconcileRoute, { method: "POST", token: outsider.token, params: { submission_id: scripts[1]! }, body: { question_id: canvas.ids.q2, final_marks: 1 } });
      expect(reconcile.status).toBe(404);
    }
    expect((await as(school.head).exam.moderation.state({ batch_id: batch.id })).sign_off).toBeNull();
  });

  it("refuses hostile bodies with a 400 and never a 500", async () => {
    const { batch, canvas, scripts } = await moderatedBatch(0);
    const { seed, cases } = fuzzSettings(40);
    const hostile = fc.oneof(hostileNumber, hostileString, fc.constant(null));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ kind: fc.constant("sample" as const), body: fc.oneof(fc.record({ percent: hostile }), fc.record({ submission_ids: fc.array(hostile) }), fc.record({ percent: fc.constant(10), tolerance: hostile })) }),
          fc.record({ kind: fc.constant("second" as const), body: fc.oneof(fc.record({ question_id: fc.constant(canvas.ids.q2), awarded_marks: hostile }), fc.record({ question_id: hostile, awarded_marks: fc.constant(1) })) }),
          fc.record({ kind: fc.constant("reconcile" as const), body: fc.oneof(fc.record({ question_id: fc.constant(canvas.ids.q2), final_marks: hostile }), fc.anything()) }),
        ),
        async ({ kind, body }) => {
          const reply =
            kind === "sample"
              ? await callRest(sampleRoute, { method: "PUT", token: school.head.token, params: { batch_id: batch.id }, body })
              : await callRest(kind === "second" ? secondMarkRoute : reconcileRoute, { method: "POST", token: school.head.token, params: { submission_id: scripts[1]! }, body });
          const answer = await reply.json();
          // A storable body may be taken (200) or meet a rule (403 the first marker, 409); anything else is a 400.
          expect([200, 400, 403, 404, 409], JSON.stringify(answer)).toContain(reply.status);
          expect(answer.detail ?? "ok").toEqual(expect.any(String));
        },
      ),
      { seed, numRuns: cases },
    );
    const state = await as(school.head).exam.moderation.state({ batch_id: batch.id });
    expect(state.sample!.tolerance).toBeGreaterThanOrEqual(0);
  });
});
