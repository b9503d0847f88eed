import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as answerRoute } from "../app/api/exam/review-requests/[request_id]/answer/route";
import { POST as requestRoute } from "../app/api/me/scripts/[submission_id]/reviews/route";
import { signUserToken } from "../server/auth/tokens";
import { rowsOf } from "../server/db/client";
import { asService } from "../server/db/rls";
import { examMarkEntries, examReviewRequests } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { markedReleasedBatch } from "./support/release-fixtures";
import { fuzzSettings, hostileJsonToken, hostileNumber, hostileString } from "./support/hostile-input";

/**
 * Issue 35, item 6: a student asks for one question of their released script to be looked at again;
 * the question's marker (or the owner; a signed-off batch's heads) answers; the student sees the outcome,
 * and every change of the mark is in the history.
 */
describeOnEachDatabase("review requests", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const day = 24 * 60 * 60 * 1000;

  beforeAll(async () => {
    school = await createSchool(database().db, "Reviews");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  const markedBatch = (options: { reviewsUntil: Date | null; release?: boolean }) => markedReleasedBatch(database().db, school, options);

  it("a student asks about a question of their released script; the owner changes the mark; the student sees the outcome and the history keeps the change", async () => {
    const { batch, canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + 7 * day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "I showed the working for the second mark." });
    expect(request).toMatchObject({ status: "open", question_label: "2", marks_before: 3, marks_after: null, outcome: null });

    const queue = await as(school.teacher).exam.reviews.queue({ batch_id: batch.id });
    expect(queue.requests.map((queued) => [queued.id, queued.assigned_to, queued.reason, queued.max_marks])).toEqual([
      [request.id, school.teacher.id, "I showed the working for the second mark.", 5],
    ]);

    const answer = await as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 4, reply: "Yes: method mark awarded." });
    expect(answer).toMatchObject({ status: "answered", outcome: "changed", marks_before: 3, marks_after: 4, reply: "Yes: method mark awarded." });

    const mine = await as(student).student.reviews.mine({ submission_id: script.id });
    expect(mine.requests).toEqual([answer]);
    // The results re-total at once, and the history says who changed what, and why.
    const results = await as(school.teacher).exam.batches.results({ batch_id: batch.id });
    const row = results.results.find((result) => result.submission_id === script.id);
    expect(row?.total).toBe(2 + 1 + 4);
    const history = await asService(database().db, (tx) =>
      tx.execute(sql`select marks_before::float8 as before, marks_after::float8 as after, changed_by, reason from exam_mark_history where submission_id = ${script.id}`),
    );
    expect(rowsOf(history)).toEqual([{ before: 3, after: 4, changed_by: school.teacher.id, reason: "Review request: Yes: method mark awarded." }]);
  });

  it("one open request per question; a kept mark is answered without a change", async () => {
    const { canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    const first = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q1a, reason: "Please look again." });
    await expect(as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q1a, reason: "Again!" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "You have already asked for question 1a to be looked at again: its answer will show here.",
    });
    const kept = await as(school.teacher).exam.reviews.answer({ request_id: first.id, outcome: "kept", reply: "The second step is missing." });
    expect(kept).toMatchObject({ outcome: "kept", marks_before: 2, marks_after: 2 });
    // Answered: a new request on the same question may be made.
    await expect(as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q1a, reason: "Still unsure." })).resolves.toMatchObject({ status: "open" });
  });

  it("two answers at the same time: one applies, the other is told it was answered", async () => {
    const { canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "Look again please." });
    const outcomes = await Promise.allSettled([
      as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 5, reply: "Full marks." }),
      as(school.head).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 1, reply: "Fewer marks." }),
    ]);
    const applied = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(applied).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ code: "CONFLICT", message: "This review request has already been answered: reload to see the answer." });
    const winner = (applied[0] as PromiseFulfilledResult<{ marks_after: number | null }>).value;
    const [mark] = await asService(database().db, (tx) =>
      tx.select().from(examMarkEntries).where(and(eq(examMarkEntries.submission_id, script.id), eq(examMarkEntries.question_id, canvas.ids.q2))),
    );
    expect(Number(mark!.awarded_marks)).toBe(winner.marks_after);
  });

  it("no request before release, before reviews open, after they close, on another student's script or from another school", async () => {
    const unreleased = await markedBatch({ reviewsUntil: null, release: false });
    const ask = (who: { id: string }, script: { id: string }, question: string) =>
      as(who).student.reviews.request({ submission_id: script.id, question_id: question, reason: "Why?" });
    await expect(ask(unreleased.student, unreleased.script, unreleased.canvas.ids.q2)).rejects.toMatchObject({ code: "NOT_FOUND", message: "Script not found" });

    const noReviews = await markedBatch({ reviewsUntil: null });
    await expect(ask(noReviews.student, noReviews.script, noReviews.canvas.ids.q2)).rejects.toMatchObject({
      code: "CONFLICT",
      message: "Your teacher has not opened this paper for review requests.",
    });

    const closed = await markedBatch({ reviewsUntil: new Date(Date.UTC(2026, 2, 12)) });
    await expect(ask(closed.student, closed.script, closed.canvas.ids.q2)).rejects.toMatchObject({ code: "CONFLICT", message: "Review requests for this paper closed on 12 March 2026." });

    const open = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    await expect(ask(open.classmate, open.script, open.canvas.ids.q2)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(ask(otherSchool.student, open.script, open.canvas.ids.q2)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(ask(otherSchool.teacher, open.script, open.canvas.ids.q2)).rejects.toMatchObject({ code: "NOT_FOUND" });
    // A container question, or a question of no paper, is not a marked question of this one.
    for (const question of [open.canvas.ids.q1, crypto.randomUUID()]) {
      await expect(ask(open.student, open.script, question)).rejects.toMatchObject({ code: "BAD_REQUEST", message: "question_id: pick a marked question of this paper" });
    }
    const written = await asService(database().db, (tx) => tx.select().from(examReviewRequests).where(eq(examReviewRequests.batch_id, open.batch.id)));
    expect(written).toEqual([]);
  });

  it("who answers: the owner and heads; another teacher and another school do not; the answer is checked against the question", async () => {
    const { batch, canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "Look again." });
    const answer = (who: { id: string }, body: Record<string, unknown>) => as(who).exam.reviews.answer({ request_id: request.id, ...body } as never);

    expect((await as(school.otherTeacher).exam.reviews.queue({ batch_id: batch.id })).requests).toEqual([]);
    await expect(answer(school.otherTeacher, { outcome: "kept", reply: "No." })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await as(otherSchool.teacher).exam.reviews.queue({})).requests).toEqual([]);
    await expect(answer(otherSchool.head, { outcome: "kept", reply: "No." })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(answer(student, { outcome: "kept", reply: "Fine." })).rejects.toMatchObject({ code: "NOT_FOUND" });

    await expect(answer(school.teacher, { outcome: "changed", awarded_marks: 6, reply: "More." })).rejects.toMatchObject({ code: "BAD_REQUEST", message: "awarded_marks: question 2 is out of 5" });
    await expect(answer(school.teacher, { outcome: "changed", reply: "More." })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(answer(school.teacher, { outcome: "kept", awarded_marks: 3, reply: "Same." })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // Nothing of the refused answers was written.
    expect((await as(student).student.reviews.mine({})).requests.find((mine) => mine.id === request.id)).toMatchObject({ status: "open" });
  });

  it("a signed-off batch's requests go to its heads, and take no change until the batch is reopened", async () => {
    const { batch, canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    await as(school.head).exam.moderation.signOff({ batch_id: batch.id });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "Please." });
    const queued = (await as(school.head).exam.reviews.queue({ batch_id: batch.id })).requests;
    expect(queued.map((entry) => [entry.id, entry.assigned_to])).toEqual([[request.id, null]]);
    await expect(as(school.head).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 4, reply: "Yes." })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await as(school.head).exam.moderation.reopen({ batch_id: batch.id });
    await expect(as(school.head).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 4, reply: "Yes." })).resolves.toMatchObject({ marks_after: 4 });
  });

  it("a request about a mark set in moderation goes to the moderator who set it, who may change it; the owner may not", async () => {
    const { batch, canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
    await as(school.teacher).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: [script.id], tolerance: 0 } });
    await as(school.head).exam.moderation.saveSecondMark({ submission_id: script.id, body: { question_id: canvas.ids.q2, awarded_marks: 1 } });
    await as(school.head).exam.moderation.reconcile({ submission_id: script.id, body: { question_id: canvas.ids.q2, final_marks: 2 } });
    const request = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q2, reason: "The method was right." });
    expect(request).toMatchObject({ marks_before: 2 });
    const queued = (await as(school.head).exam.reviews.queue({ batch_id: batch.id })).requests;
    expect(queued.map((entry) => [entry.id, entry.assigned_to])).toEqual([[request.id, school.head.id]]);
    await expect(as(school.teacher).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 4, reply: "Yes." })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(as(school.head).exam.reviews.answer({ request_id: request.id, outcome: "changed", awarded_marks: 3, reply: "Method mark given." })).resolves.toMatchObject({
      marks_before: 2,
      marks_after: 3,
    });
  });

  describe("over REST, hostile bodies are refused with the contract's error and write nothing", () => {
    it("requests and answers", async () => {
      const { batch, canvas, student, script } = await markedBatch({ reviewsUntil: new Date(Date.now() + day) });
      const studentToken = await signUserToken({ userId: student.id, ttlSeconds: 600 });
      const teacherToken = await signUserToken({ userId: school.teacher.id, ttlSeconds: 600 });
      const open = await as(student).student.reviews.request({ submission_id: script.id, question_id: canvas.ids.q1b, reason: "Look." });
      const field = fc.oneof(hostileString, hostileNumber, fc.constant(null), fc.array(hostileString, { maxLength: 3 }), fc.string({ minLength: 2001, maxLength: 2100 }));
      await fc.assert(
        fc.asyncProperty(
          fc.record({ question_id: field, reason: field, extra: field }, { requiredKeys: [] }),
          fc.oneof(hostileJsonToken, fc.constant(null)),
          async (body, raw) => {
            const reply = await callRest(requestRoute, { method: "POST", token: studentToken, params: { submission_id: script.id }, body: raw ?? body });
            expect([400, 404, 409]).toContain(reply.status);
            expect(await reply.json()).toMatchObject({ detail: expect.any(String) });
          },
        ),
        fuzzSettings(40),
      );
      await fc.assert(
        fc.asyncProperty(fc.record({ outcome: field, awarded_marks: fc.oneof(hostileNumber, field), reply: field }, { requiredKeys: [] }), async (body) => {
          const reply = await callRest(answerRoute, { method: "POST", token: teacherToken, params: { request_id: open.id }, body });
          expect([400, 403, 409]).toContain(reply.status);
          expect(await reply.json()).toMatchObject({ detail: expect.any(String) });
        }),
        fuzzSettings(40),
      );
      const requests = await asService(database().db, (tx) => tx.select().from(examReviewRequests).where(eq(examReviewRequests.batch_id, batch.id)));
      expect(requests.map((request) => [request.id, request.status])).toEqual([[open.id, "open"]]);
      const created = await callRest(requestRoute, { method: "POST", token: studentToken, params: { submission_id: script.id }, body: { question_id: canvas.ids.q2, reason: "Please look at my graph." } });
      expect(created.status).toBe(201);
      const ghost = await callRest(answerRoute, { method: "POST", token: teacherToken, params: { request_id: "not-an-id" }, body: { outcome: "kept", reply: "x" } });
      expect(ghost.status).toBe(404);
    });
  });
});
