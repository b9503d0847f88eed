import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { POST as claimRoute } from "../app/api/exam/batches/[batch_id]/claims/route";
import { POST as inviteRoute } from "../app/api/exam/batches/[batch_id]/markers/route";
import { PUT as allocationsRoute } from "../app/api/exam/batches/[batch_id]/markers/[user_id]/allocations/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { asService, asUser } from "../server/db/rls";
import { examMarkClaims, examMarkEntries, examSubmissions } from "../server/db/schema";
import { upsertMarks, upsertMarkInput } from "../server/exam/marks";
import { CLAIM_SECONDS } from "../server/exam/shared-marking";
import { signUserToken } from "../server/auth/tokens";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase, openSecondHandle } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileNumber, hostileString } from "./support/hostile-input";

/** An error of row-level security (drizzle wraps the database's error as its cause). */
function refusedByPolicy(error: unknown): boolean {
  const messages = [error, (error as { cause?: unknown })?.cause].map((part) => (part instanceof Error ? part.message : ""));
  return messages.some((message) => /row-level security/.test(message));
}

describeOnEachDatabase("shared marking: markers, allocations, claims", (database) => {
  let school: School;
  let otherSchool: School;
  /** A second colleague of the school's teacher, invited as a marker where two markers are needed (a department head marks everything). */
  let marker2: School["teacher"];
  const as = (user: { id: string }, db = database().db) => createCaller({ db, user: { id: user.id } });

  /** A batch of the school's teacher on the sample canvas (1a, 1b, Q2), every script scanned; scripts in number order. */
  async function scannedBatch(students = 4) {
    const owner = as(school.teacher);
    const template = await owner.exam.templates.create({ title: `Shared ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    const canvas = sampleCanvas();
    await owner.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, students);
    const batch = await owner.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    // The scans themselves do not matter here: each script gets one, as an upload would leave it.
    const scripts = await asService(database().db, async (tx) => {
      await tx.update(examSubmissions).set({ scan_url: sql`'exam-submissions/' || ${batch.id} || '/' || ${examSubmissions.id} || '.pdf'`, status: "matched" }).where(eq(examSubmissions.batch_id, batch.id));
      return tx.select({ id: examSubmissions.id, script_number: examSubmissions.script_number }).from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)).orderBy(examSubmissions.script_number);
    });
    return { batch, canvas, scripts };
  }
  const mark = (marker: { id: string }, submissionId: string, questionId: string, awarded = 1, db = database().db) =>
    as(marker, db).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true } });
  const claimsOf = (batchId: string) => asService(database().db, (tx) => tx.select().from(examMarkClaims).where(eq(examMarkClaims.batch_id, batchId)));

  beforeAll(async () => {
    school = await createSchool(database().db, "Shared");
    otherSchool = await createSchool(database().db, "Elsewhere");
    marker2 = await asService(database().db, async (tx) => {
      const user = await createUser(tx, { email: `marker2.${crypto.randomUUID().slice(0, 8)}@example.org`, fullName: "Second Marker", instituteId: school.institute.id, role: "teacher" });
      return { ...user, token: await signUserToken({ userId: user.id, ttlSeconds: 600 }) };
    });
  });

  it("a batch without markers is marked by its owner and the department heads; a colleague reads it, and there is nothing to claim", async () => {
    const { batch, canvas, scripts } = await scannedBatch(2);
    await expect(mark(school.teacher, scripts[0]!.id, canvas.ids.q2, 4)).resolves.toMatchObject({ awarded_marks: 4 });
    await expect(mark(school.head, scripts[1]!.id, canvas.ids.q1a, 2)).resolves.toMatchObject({ awarded_marks: 2 });
    await expect(mark(school.otherTeacher, scripts[0]!.id, canvas.ids.q2, 1)).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "This batch is another teacher's: only its owner, its markers or a department head can mark it",
    });
    // The database holds the rule without marks.ts: the colleague's own insert is refused by the policy.
    await expect(
      asUser(database().db, school.otherTeacher.id, (tx) =>
        tx.execute(sql`insert into exam_mark_entries (submission_id, question_id, batch_id, awarded_marks, marked_by, marked_by_user_id)
          values (${scripts[1]!.id}, ${canvas.ids.q2}, ${batch.id}, 1, 'teacher', ${school.otherTeacher.id})`),
      ),
    ).rejects.toSatisfy(refusedByPolicy);
    const work = await as(school.otherTeacher).exam.markers.myWork({ batch_id: batch.id });
    expect(work).toMatchObject({ shared: false, role: "colleague", marks: "nothing", scripts: [] });
    const headWork = await as(school.head).exam.markers.myWork({ batch_id: batch.id });
    expect(headWork).toMatchObject({ shared: false, marks: "everything" });
    expect(headWork.scripts.map((script) => script.question_ids)).toEqual([
      [canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2],
      [canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2],
    ]);
    await expect(as(school.head).exam.claims.claim({ batch_id: batch.id, body: {} })).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/no markers/) });
  });

  it("only the owner invites, and only active staff of the batch's school; one message whoever else is named", async () => {
    const { batch } = await scannedBatch(1);
    const owner = as(school.teacher);
    await expect(as(school.otherTeacher).exam.markers.invite({ batch_id: batch.id, body: { user_id: school.head.id } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const listed = await owner.exam.markers.list({ batch_id: batch.id });
    expect(listed.candidates.map((person) => person.user_id).sort()).toEqual([school.admin.id, school.head.id, school.otherTeacher.id, marker2.id].sort());
    const messages = [];
    for (const outsider of [school.student, otherSchool.teacher, { id: crypto.randomUUID() }]) {
      const reply = await callRest(inviteRoute, { method: "POST", token: school.teacher.token, params: { batch_id: batch.id }, body: { user_id: outsider.id } });
      expect(reply.status).toBe(400);
      messages.push((await reply.json()).detail);
    }
    expect(new Set(messages)).toEqual(new Set(["user_id: not an active member of staff of this batch's school"]));
    const invited = await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    const again = await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    expect(invited).toMatchObject({ shared: true, markers: [{ user_id: school.otherTeacher.id, allocations: [] }] });
    expect(again.markers).toHaveLength(1);
    // Row-level security holds the same rule without the domain function: a colleague cannot add themselves.
    await expect(
      asUser(database().db, school.otherTeacher.id, (tx) => tx.execute(sql`insert into exam_batch_markers (batch_id, user_id, added_by) values (${batch.id}, ${school.head.id}, ${school.otherTeacher.id})`)),
    ).rejects.toSatisfy(refusedByPolicy);
  });

  it("a marker sees and writes only their allocation, by question or script range; the owner marks anything; a colleague who is not a marker, nothing", async () => {
    const { batch, canvas, scripts } = await scannedBatch(4);
    const owner = as(school.teacher);
    await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: marker2.id } });
    await owner.exam.markers.setAllocations({ batch_id: batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ question_id: canvas.ids.q2 }] } });
    const byRange = await owner.exam.markers.setAllocations({
      batch_id: batch.id,
      user_id: marker2.id,
      body: { allocations: [{ first_script: scripts[0]!.script_number, last_script: scripts[1]!.script_number }] },
    });
    expect(byRange.markers.find((marker) => marker.user_id === marker2.id)!.allocations).toEqual([
      expect.objectContaining({ question_id: null, first_script: scripts[0]!.script_number, last_script: scripts[1]!.script_number }),
    ]);

    // Queues: question 2 of every script; every question of the first two scripts; nothing.
    const q2Work = await as(school.otherTeacher).exam.markers.myWork({ batch_id: batch.id });
    expect(q2Work).toMatchObject({ shared: true, role: "marker", marks: "allocation" });
    expect(q2Work.scripts.map((script) => [script.submission_id, script.question_ids])).toEqual(scripts.map((script) => [script.id, [canvas.ids.q2]]));
    const rangeWork = await as(marker2).exam.markers.myWork({ batch_id: batch.id });
    expect(rangeWork.scripts.map((script) => script.submission_id)).toEqual([scripts[0]!.id, scripts[1]!.id]);
    expect(rangeWork.scripts[0]!.question_ids).toEqual([canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2]);
    expect(await as(school.admin).exam.markers.myWork({ batch_id: batch.id })).toMatchObject({ role: "colleague", marks: "nothing", scripts: [] });

    // Writes within the allocation pass; outside it, a 403 saying why, and nothing is stored.
    await expect(mark(school.otherTeacher, scripts[3]!.id, canvas.ids.q2, 5)).resolves.toMatchObject({ awarded_marks: 5 });
    await expect(mark(marker2, scripts[1]!.id, canvas.ids.q1b, 2)).resolves.toMatchObject({ awarded_marks: 2 });
    await expect(mark(school.otherTeacher, scripts[0]!.id, canvas.ids.q1a)).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/Question 1a of this script is not in your allocation/) });
    await expect(mark(marker2, scripts[2]!.id, canvas.ids.q2)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(mark(school.admin, scripts[0]!.id, canvas.ids.q2)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const rest = await callRest(markRoute, {
      method: "PUT",
      token: school.otherTeacher.token,
      params: { mark_id: crypto.randomUUID() },
      body: { submission_id: scripts[1]!.id, question_id: canvas.ids.q1a, awarded_marks: 1 },
    });
    expect(rest.status).toBe(403);
    expect((await rest.json()).detail).toMatch(/not in your allocation: ask the batch's owner/);
    await expect(mark(school.teacher, scripts[2]!.id, canvas.ids.q1a, 3)).resolves.toMatchObject({ awarded_marks: 3 });

    // The same through upsertMarks directly: the refusal comes from the database's rule.
    const [direct] = await upsertMarks(database().db, school.otherTeacher.id, [
      upsertMarkInput.parse({ mark_id: crypto.randomUUID(), body: { submission_id: scripts[2]!.id, question_id: canvas.ids.q1b, awarded_marks: 1 } }),
    ]);
    expect(direct).toMatchObject({ error: { code: "forbidden" } });
    // And a write that skips marks.ts altogether meets the policy.
    await expect(
      asUser(database().db, school.otherTeacher.id, (tx) =>
        tx.insert(examMarkEntries).values({ submission_id: scripts[2]!.id, question_id: canvas.ids.q1b, batch_id: batch.id, awarded_marks: "1", marked_by_user_id: school.otherTeacher.id }),
      ),
    ).rejects.toSatisfy(refusedByPolicy);
    await expect(
      asUser(database().db, marker2.id, (tx) =>
        tx.update(examMarkEntries).set({ awarded_marks: "0", marked_by_user_id: marker2.id }).where(and(eq(examMarkEntries.submission_id, scripts[3]!.id), eq(examMarkEntries.question_id, canvas.ids.q2))),
      ),
    ).rejects.toSatisfy(refusedByPolicy);
    const stored = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.batch_id, batch.id)));
    expect(stored.map((row) => [row.submission_id, row.question_id, Number(row.awarded_marks), row.marked_by_user_id]).sort()).toEqual(
      [
        [scripts[3]!.id, canvas.ids.q2, 5, school.otherTeacher.id],
        [scripts[1]!.id, canvas.ids.q1b, 2, marker2.id],
        [scripts[2]!.id, canvas.ids.q1a, 3, school.teacher.id],
      ].sort(),
    );

    // Progress per marker: their allocation among scanned scripts, and what of it is done.
    const progress = await owner.exam.markers.progress({ batch_id: batch.id });
    expect(progress.markers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: school.otherTeacher.id, is_marker: true, allocated: 4, done: 1, marks_written: 1 }),
        expect.objectContaining({ user_id: marker2.id, is_marker: true, allocated: 6, done: 1, marks_written: 1 }),
        expect.objectContaining({ user_id: school.teacher.id, is_marker: false, allocated: null, marks_written: 1 }),
      ]),
    );

    // The last marker removed: the batch is ordinary again, and the colleague marks anything.
    await owner.exam.markers.remove({ batch_id: batch.id, user_id: school.otherTeacher.id });
    await expect(as(school.otherTeacher).exam.markers.remove({ batch_id: batch.id, user_id: marker2.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const last = await owner.exam.markers.remove({ batch_id: batch.id, user_id: marker2.id });
    expect(last).toMatchObject({ shared: false, markers: [] });
    await expect(mark(school.head, scripts[0]!.id, canvas.ids.q2)).resolves.toMatchObject({ awarded_marks: 1 });
    await expect(mark(school.admin, scripts[0]!.id, canvas.ids.q2)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("two markers claiming the same (script, question) at once: one gets it, the other is told who has it", async () => {
    const { batch, canvas, scripts } = await scannedBatch(2);
    const owner = as(school.teacher);
    for (const marker of [school.otherTeacher, marker2]) {
      await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: marker.id } });
      await owner.exam.markers.setAllocations({ batch_id: batch.id, user_id: marker.id, body: { allocations: [{ question_id: canvas.ids.q2 }] } });
    }
    // Two connections (on PostgreSQL; PGlite has one and runs them one after the other).
    const second = await openSecondHandle(database());
    try {
      for (const script of scripts) {
        const pair = { submission_id: script.id, question_id: canvas.ids.q2 };
        const outcomes = await Promise.allSettled([
          as(school.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: pair }),
          as(marker2, second.db).exam.claims.claim({ batch_id: batch.id, body: pair }),
        ]);
        const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
        const lost = outcomes.filter((outcome) => outcome.status === "rejected");
        expect(won, JSON.stringify(outcomes)).toHaveLength(1);
        expect(lost[0]!.reason).toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/Question 2 of this script is being marked by (Colleague Shared|Second Marker)/) });
        const winner = won[0]!.value.claim!.marker_id;
        const rows = (await claimsOf(batch.id)).filter((row) => row.submission_id === script.id);
        expect(rows.map((row) => row.marker_id)).toEqual([winner]);
        // The loser may not write the pair while the claim lasts; the winner may.
        const loser = winner === marker2.id ? school.otherTeacher : marker2;
        const winnerPerson = winner === marker2.id ? marker2 : school.otherTeacher;
        await expect(mark(loser, script.id, canvas.ids.q2)).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringMatching(/being marked by another marker/) });
        await expect(mark(winnerPerson, script.id, canvas.ids.q2, 3)).resolves.toMatchObject({ awarded_marks: 3 });
      }
    } finally {
      await second.close();
    }
  });

  it("claims: the next pair of one's allocation, renewed by a save, released, taken over once expired", async () => {
    const { batch, canvas, scripts } = await scannedBatch(3);
    const owner = as(school.teacher);
    for (const marker of [school.otherTeacher, marker2]) {
      await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: marker.id } });
      await owner.exam.markers.setAllocations({ batch_id: batch.id, user_id: marker.id, body: { allocations: [{ question_id: canvas.ids.q1a }, { question_id: canvas.ids.q1b }] } });
    }
    const first = (await as(school.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: {} })).claim!;
    expect(first).toMatchObject({ submission_id: scripts[0]!.id, question_id: canvas.ids.q1a, marker_id: school.otherTeacher.id });
    // The other marker is given the next free pair, question by question when asked.
    const byQuestion = (await as(marker2).exam.claims.claim({ batch_id: batch.id, body: { by: "question" } })).claim!;
    expect(byQuestion).toMatchObject({ submission_id: scripts[1]!.id, question_id: canvas.ids.q1a });
    // Another marker cannot release it (row-level security leaves the row alone); it stays the first marker's.
    expect(await as(marker2).exam.claims.release({ batch_id: batch.id, body: first })).toEqual({ released: false });
    expect((await claimsOf(batch.id)).filter((row) => row.submission_id === first.submission_id && row.question_id === first.question_id).map((row) => row.marker_id)).toEqual([
      school.otherTeacher.id,
    ]);
    // Outside the allocation: 403, even when free.
    await expect(as(marker2).exam.claims.claim({ batch_id: batch.id, body: { submission_id: scripts[2]!.id, question_id: canvas.ids.q2 } })).rejects.toMatchObject({ code: "FORBIDDEN" });

    // A save renews the claim for another CLAIM_SECONDS.
    await asService(database().db, (tx) => tx.update(examMarkClaims).set({ expires_at: sql`now() + interval '1 minute'` }).where(eq(examMarkClaims.marker_id, school.otherTeacher.id)));
    await mark(school.otherTeacher, first.submission_id, first.question_id, 2);
    const [renewed] = (await claimsOf(batch.id)).filter((row) => row.marker_id === school.otherTeacher.id);
    expect(renewed!.expires_at.getTime() - Date.now()).toBeGreaterThan((CLAIM_SECONDS - 60) * 1000);

    // Released, the pair is free to the other marker.
    expect(await as(school.otherTeacher).exam.claims.release({ batch_id: batch.id, body: first })).toEqual({ released: true });
    expect(await as(school.otherTeacher).exam.claims.release({ batch_id: batch.id, body: first })).toEqual({ released: false });
    await expect(as(marker2).exam.claims.claim({ batch_id: batch.id, body: first })).resolves.toMatchObject({ claim: { marker_id: marker2.id } });

    // An expired claim binds nobody: writes pass and another marker takes the pair over.
    await expect(mark(school.otherTeacher, byQuestion.submission_id, byQuestion.question_id)).rejects.toMatchObject({ code: "CONFLICT" });
    await asService(database().db, (tx) => tx.update(examMarkClaims).set({ expires_at: sql`now() - interval '1 second'` }).where(eq(examMarkClaims.marker_id, marker2.id)));
    await expect(mark(school.otherTeacher, byQuestion.submission_id, byQuestion.question_id, 1)).resolves.toMatchObject({ awarded_marks: 1 });
    const takenOver = await as(school.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: { submission_id: scripts[2]!.id, question_id: canvas.ids.q1b } });
    expect(takenOver.claim).toMatchObject({ marker_id: school.otherTeacher.id });

    // The owner releases anyone's claim; when every pair is confirmed, there is nothing left: null.
    expect(await owner.exam.claims.release({ batch_id: batch.id, body: { submission_id: scripts[2]!.id, question_id: canvas.ids.q1b } })).toEqual({ released: true });
    for (const script of scripts) for (const question of [canvas.ids.q1a, canvas.ids.q1b]) await mark(school.teacher, script.id, question, 1);
    await expect(as(marker2).exam.claims.claim({ batch_id: batch.id, body: {} })).resolves.toEqual({ claim: null });
  });

  it("another school sees nothing of a shared batch: 404 everywhere, and nothing changes", async () => {
    const { batch, canvas, scripts } = await scannedBatch(1);
    await as(school.teacher).exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    await as(school.teacher).exam.markers.setAllocations({ batch_id: batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ question_id: canvas.ids.q2 }] } });
    const pair = { submission_id: scripts[0]!.id, question_id: canvas.ids.q2 };
    for (const outsider of [otherSchool.teacher, otherSchool.admin, otherSchool.head, otherSchool.student]) {
      const them = as(outsider);
      for (const call of [
        () => them.exam.markers.list({ batch_id: batch.id }),
        () => them.exam.markers.myWork({ batch_id: batch.id }),
        () => them.exam.markers.progress({ batch_id: batch.id }),
        () => them.exam.markers.invite({ batch_id: batch.id, body: { user_id: outsider.id } }),
        () => them.exam.markers.remove({ batch_id: batch.id, user_id: school.otherTeacher.id }),
        () => them.exam.markers.setAllocations({ batch_id: batch.id, user_id: school.otherTeacher.id, body: { allocations: [{ first_script: 1 }] } }),
        () => them.exam.claims.claim({ batch_id: batch.id, body: pair }),
        () => them.exam.claims.release({ batch_id: batch.id, body: pair }),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: "NOT_FOUND" });
      }
    }
    expect(await claimsOf(batch.id)).toEqual([]);
    expect((await as(school.teacher).exam.markers.list({ batch_id: batch.id })).markers.map((marker) => marker.user_id)).toEqual([school.otherTeacher.id]);
  });

  it("refuses hostile bodies of invitations, allocations and claims with a 400 (or 404 for a malformed path), never a 500", async () => {
    const { batch } = await scannedBatch(1);
    await as(school.teacher).exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    const { seed, cases } = fuzzSettings(40);
    const hostileId = fc.oneof(hostileString, hostileNumber, fc.constant(null));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ route: fc.constant("invite" as const), body: fc.oneof(fc.record({ user_id: hostileId }), fc.anything()) }),
          fc.record({
            route: fc.constant("allocations" as const),
            body: fc.oneof(
              fc.record({ allocations: fc.array(fc.record({ question_id: hostileId, first_script: fc.oneof(hostileNumber, hostileString), last_script: hostileNumber }, { requiredKeys: [] }), { maxLength: 3 }) }),
              fc.anything(),
            ),
          }),
          fc.record({ route: fc.constant("claim" as const), body: fc.oneof(fc.record({ submission_id: hostileId, question_id: hostileId, by: hostileString }, { requiredKeys: [] }), fc.anything()) }),
        ),
        async ({ route, body }) => {
          const reply =
            route === "invite"
              ? await callRest(inviteRoute, { method: "POST", token: school.teacher.token, params: { batch_id: batch.id }, body })
              : route === "allocations"
                ? await callRest(allocationsRoute, { method: "PUT", token: school.teacher.token, params: { batch_id: batch.id, user_id: school.otherTeacher.id }, body })
                : await callRest(claimRoute, { method: "POST", token: school.otherTeacher.token, params: { batch_id: batch.id }, body });
          const answer = await reply.json();
          // A body that happens to be valid (an empty allocation list, a claim of the next pair) is answered 200.
          if (reply.status === 200) return;
          expect([400, 403, 404, 409], JSON.stringify(answer)).toContain(reply.status);
          expect(answer.detail).toEqual(expect.any(String));
        },
      ),
      { seed, numRuns: cases },
    );
    const backwards = await callRest(allocationsRoute, {
      method: "PUT",
      token: school.teacher.token,
      params: { batch_id: batch.id, user_id: school.otherTeacher.id },
      body: { allocations: [{ first_script: 5, last_script: 2 }] },
    });
    expect(backwards.status).toBe(400);
    expect((await backwards.json()).detail).toMatch(/Allocation 1, last script: first script must not be after last script/);
  });
});
