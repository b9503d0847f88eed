import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { PUT as upsertMarkRoute } from "../app/api/exam/marks/[mark_id]/route";
import { POST as reconcileRoute } from "../app/api/exam/submissions/[submission_id]/reconcile/route";
import { asService, asUser } from "../server/db/rls";
import { examMarkClaims, examMarkEntries, examSubmissions } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings } from "./support/hostile-input";

/**
 * Issue 32, item 4: a department head's "Set final mark" on a batch whose marking is shared. The head
 * is a moderator of every batch of their school but need not be one of its markers: the reconciled mark
 * is written as the owner's would be (same rules, same result), not refused by the shared-marking rule.
 */
describeOnEachDatabase("moderation: a department head reconciles a shared batch", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Reconcile");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  /**
   * A batch of three scanned scripts, shared: the colleague is its only marker (allocated question 2),
   * the owner first-marks 1a and the colleague 2; everything is in the sample, and the head second-marks.
   */
  async function sharedModeratedBatch({ shared = true } = {}) {
    const owner = as(school.teacher);
    const template = await owner.exam.templates.create({ title: `Reconciled ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    const canvas = sampleCanvas();
    await owner.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 3);
    const batch = await owner.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    const scripts = await asService(database().db, async (tx) => {
      await tx.update(examSubmissions).set({ scan_url: sql`'exam-submissions/' || ${batch.id} || '/' || ${examSubmissions.id} || '.pdf'`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id));
      return tx.select({ id: examSubmissions.id }).from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)).orderBy(examSubmissions.script_number);
    });
    if (shared) {
      await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
      await owner.exam.markers.setAllocations({ batch_id: batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ question_id: canvas.ids.q2 }] } });
    }
    const mark = (marker: { id: string }, submissionId: string, questionId: string, awarded: number) =>
      as(marker).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, comment: "first", confirmed: true } });
    for (const script of scripts) {
      await mark(school.teacher, script.id, canvas.ids.q1a, 3);
      await mark(shared ? school.otherTeacher : school.teacher, script.id, canvas.ids.q2, 4);
    }
    await owner.exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: scripts.map((script) => script.id), tolerance: 0 } });
    for (const script of scripts) {
      for (const [questionId, value] of [[canvas.ids.q1a, 1], [canvas.ids.q2, 2]] as const) {
        await as(school.head).exam.moderation.saveSecondMark({ submission_id: script.id, body: { question_id: questionId, awarded_marks: value } });
      }
    }
    return { batch, canvas, scripts: scripts.map((script) => script.id) };
  }

  it("a head who is not a marker sets the final mark of a shared batch: the mark takes it, both marks are kept, as the owner's would", async () => {
    const { canvas, scripts } = await sharedModeratedBatch();
    for (const questionId of [canvas.ids.q1a, canvas.ids.q2]) {
      const reconciled = await as(school.head).exam.moderation.reconcile({ submission_id: scripts[0]!, body: { question_id: questionId, final_marks: 2.5 } });
      expect(reconciled).toMatchObject({ final_marks: 2.5, reconciled_by: school.head.id, second_marker_id: school.head.id });
    }
    const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[0]! });
    expect(marks.marks.find((entry) => entry.question_id === canvas.ids.q1a)).toMatchObject({ awarded_marks: 2.5, comment: "first", confirmed: true });
    expect(marks.marks.find((entry) => entry.question_id === canvas.ids.q2)).toMatchObject({ awarded_marks: 2.5, comment: "first", confirmed: true });
    const differences = await as(school.teacher).exam.moderation.differences({ batch_id: (await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[0]! })).submission.batch_id });
    expect(differences.differences.filter((row) => row.submission_id === scripts[0]).map((row) => [row.first_marks, row.second_marks, row.final_marks])).toEqual([
      [3, 1, 2.5],
      [4, 2, 2.5],
    ]);
    // Over REST too: 200, not 500.
    const reply = await callRest(reconcileRoute, { method: "POST", token: school.head.token, params: { submission_id: scripts[1]! }, body: { question_id: canvas.ids.q2, final_marks: 3 } });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ final_marks: 3, reconciled_by: school.head.id });
  });

  it("a marker's claim on the pair does not refuse the moderator's final mark (owner or head), and other writes keep the shared rules", async () => {
    const { batch, canvas, scripts } = await sharedModeratedBatch();
    // The colleague has question 2 of the first two scripts open.
    for (const script of scripts.slice(0, 2)) {
      await as(school.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: { submission_id: script, question_id: canvas.ids.q2 } });
    }
    await expect(as(school.head).exam.moderation.reconcile({ submission_id: scripts[0]!, body: { question_id: canvas.ids.q2, final_marks: 3 } })).resolves.toMatchObject({ final_marks: 3 });
    await expect(as(school.teacher).exam.moderation.reconcile({ submission_id: scripts[1]!, body: { question_id: canvas.ids.q2, final_marks: 1 } })).resolves.toMatchObject({ final_marks: 1 });
    // A head writes every mark of the batch, as its owner does (the batch gate: owner, heads, invited
    // markers); the owner's first mark of a pair the colleague holds (not reconciled by the owner) is
    // still refused by the claim.
    await expect(
      as(school.head).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[2]!, question_id: canvas.ids.q1b, awarded_marks: 1 } }),
    ).resolves.toMatchObject({ awarded_marks: 1 });
    await as(school.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: { submission_id: scripts[2]!, question_id: canvas.ids.q2 } });
    await expect(
      as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[2]!, question_id: canvas.ids.q2, awarded_marks: 1 } }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await asService(database().db, (tx) => tx.delete(examMarkClaims).where(eq(examMarkClaims.batch_id, batch.id)));
  });

  it("a final mark set in moderation stays the moderator's: a marker's later save is a 409 that says so, on tRPC, REST and a direct write; another moderator reconciles again", async () => {
    for (const shared of [true, false]) {
      const { canvas, scripts } = await sharedModeratedBatch({ shared });
      const [script] = scripts;
      const q2Marker = shared ? school.otherTeacher : school.teacher;
      await as(school.head).exam.moderation.reconcile({ submission_id: script!, body: { question_id: canvas.ids.q2, final_marks: 2.5 } });
      const save = (user: { id: string }, awarded: number) =>
        as(user).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script!, question_id: canvas.ids.q2, awarded_marks: awarded, confirmed: true } });
      const q2Mark = async () => (await as(school.teacher).exam.marks.forSubmission({ submission_id: script! })).marks.find((entry) => entry.question_id === canvas.ids.q2)!;

      for (const user of new Set([q2Marker, school.teacher])) {
        await expect(save(user, 4)).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/^Question 2 of this script has a final mark set in moderation/) });
      }
      const reply = await callRest(upsertMarkRoute, {
        method: "PUT",
        token: q2Marker.token,
        params: { mark_id: crypto.randomUUID() },
        body: { submission_id: script!, question_id: canvas.ids.q2, awarded_marks: 4 },
      });
      expect(reply.status).toBe(409);
      expect((await reply.json()).detail).toMatch(/final mark set in moderation/);
      // A write that skips the mark write's statement meets the same rule in the policies.
      await expect(
        asUser(database().db, q2Marker.id, (tx) =>
          tx.update(examMarkEntries).set({ awarded_marks: "4" }).where(and(eq(examMarkEntries.submission_id, script!), eq(examMarkEntries.question_id, canvas.ids.q2))),
        ),
      ).rejects.toThrow();
      expect((await q2Mark()).awarded_marks).toBe(2.5);

      // The moderator who set it may change it; another moderator (the owner) reconciles it again, and then it is theirs.
      await expect(save(school.head, 3)).resolves.toMatchObject({ awarded_marks: 3 });
      await as(school.teacher).exam.moderation.reconcile({ submission_id: script!, body: { question_id: canvas.ids.q2, final_marks: 1 } });
      await expect(save(school.head, 5)).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(save(school.teacher, 1.5)).resolves.toMatchObject({ awarded_marks: 1.5 });
      // The other pairs keep their markers.
      await expect(
        as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script!, question_id: canvas.ids.q1a, awarded_marks: 2 } }),
      ).resolves.toMatchObject({ awarded_marks: 2 });
    }
  });

  it("another school's head gets 404 and nothing changes", async () => {
    const { canvas, scripts } = await sharedModeratedBatch();
    const reply = await callRest(reconcileRoute, { method: "POST", token: otherSchool.head.token, params: { submission_id: scripts[0]! }, body: { question_id: canvas.ids.q2, final_marks: 0 } });
    expect(reply.status).toBe(404);
    const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[0]! });
    expect(marks.marks.find((entry) => entry.question_id === canvas.ids.q2)).toMatchObject({ awarded_marks: 4 });
  });

  it("any final mark from 0 to the maximum, in hundredths, becomes the mark when a head sets it; above it is a 400 naming the range", async () => {
    const { canvas, scripts } = await sharedModeratedBatch();
    const { seed, cases } = fuzzSettings(12);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 700 }), fc.constantFrom(0, 1, 2), async (hundredths, index) => {
        const value = hundredths / 100;
        const reply = await callRest(reconcileRoute, {
          method: "POST",
          token: school.head.token,
          params: { submission_id: scripts[index]! },
          body: { question_id: canvas.ids.q2, final_marks: value },
        });
        const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: scripts[index]! });
        const mark = marks.marks.find((entry) => entry.question_id === canvas.ids.q2)!;
        if (value <= 5) {
          expect(reply.status).toBe(200);
          expect(mark.awarded_marks).toBe(value);
        } else {
          expect(reply.status).toBe(400);
          expect((await reply.json()).detail).toMatch(/takes 0 to 5 marks/);
          expect(mark.awarded_marks).not.toBe(value);
        }
      }),
      { seed, numRuns: cases },
    );
  });
});

