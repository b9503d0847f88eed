import crypto from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { DELETE as withdrawRoute, GET as statusRoute, PUT as releaseRoute } from "../app/api/exam/batches/[batch_id]/release/route";
import { rowsOf } from "../server/db/client";
import { asService, asUser } from "../server/db/rls";
import { examAnnotations, examBatches, examMarkEntries, examQuestions, examSubmissions, examTemplates } from "../server/db/schema";
import { batchRefusal } from "../server/exam/batch-gate";
import { UNMODERATED_RELEASE } from "../server/exam/returns/release";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";

/**
 * Issue 35, item 2: the owner releases a batch's results to its students and withdraws them
 * (server/exam/returns/release.ts). What a student then reads is row-level security's: each student's
 * own transaction reads the tables directly here, before release, after, with the scope narrowed, and
 * after withdrawal.
 */

describeOnEachDatabase("returns: releasing results to students, and withdrawing them", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Release");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  /**
   * A batch of the teacher's with three students: `complete` has a scan and every leaf marked and
   * confirmed, `partial` a scan and one mark, `absent` nothing. The admin is an invited marker. Each
   * scanned script has a first-marking annotation, and `complete` a blind second marker's one too.
   */
  async function batchToRelease() {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Released paper", page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 3);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: `Batch ${crypto.randomUUID().slice(0, 6)}` });
    await teacher.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.admin.id } });
    const submissions = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
    const scriptOf = (studentId: string) => submissions.find((submission) => submission.student_id === studentId)!.id;
    const [complete, partial, absent] = roster.students.map((student) => ({ ...student, submissionId: scriptOf(student.id) }));
    await asService(database().db, (tx) =>
      tx
        .update(examSubmissions)
        .set({ scan_url: `exam-submissions/${batch.id}/scan.pdf`, status: "matched" })
        .where(inArray(examSubmissions.id, [complete!.submissionId, partial!.submissionId])),
    );
    const mark = (submissionId: string, questionId: string, value: number) =>
      teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: value, confirmed: true } });
    await mark(complete!.submissionId, canvas.ids.q1a, 3);
    await mark(complete!.submissionId, canvas.ids.q1b, 1);
    await mark(complete!.submissionId, canvas.ids.q2, 4);
    await mark(partial!.submissionId, canvas.ids.q2, 2);
    // Annotations are written by the batch's writers as themselves (the owner here).
    await asUser(database().db, school.teacher.id, (tx) =>
      tx.insert(examAnnotations).values([
        { id: crypto.randomUUID(), batch_id: batch.id, submission_id: complete!.submissionId, page: 1, kind: "tick", geometry: { x: 0.2, y: 0.3 }, question_id: canvas.ids.q1a, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batch.id, submission_id: partial!.submissionId, page: 3, kind: "text", geometry: { x: 0.5, y: 0.5 }, text: "Show the units", author_id: school.teacher.id },
        {
          id: crypto.randomUUID(),
          batch_id: batch.id,
          submission_id: complete!.submissionId,
          page: 1,
          kind: "cross",
          layer: "second_marking",
          geometry: { x: 0.4, y: 0.3 },
          author_id: school.teacher.id,
        },
      ]),
    );
    return { batch, template, canvas, complete: complete!, partial: partial!, absent: absent! };
  }
  type Fixture = Awaited<ReturnType<typeof batchToRelease>>;

  /** Everything of the fixture's batch that `student` reads in their own transaction, straight from the tables. */
  async function readsOf(student: { id: string }, fx: Fixture) {
    return asUser(database().db, student.id, async (tx) => ({
      submissions: (await tx.select({ id: examSubmissions.id }).from(examSubmissions).where(eq(examSubmissions.batch_id, fx.batch.id))).map((row) => row.id),
      marks: (await tx.select({ submission_id: examMarkEntries.submission_id }).from(examMarkEntries).where(eq(examMarkEntries.batch_id, fx.batch.id))).map(
        (row) => row.submission_id,
      ),
      annotations: (await tx.select({ submission_id: examAnnotations.submission_id, layer: examAnnotations.layer }).from(examAnnotations).where(eq(examAnnotations.batch_id, fx.batch.id))).map(
        (row) => `${row.submission_id} ${row.layer}`,
      ),
      templates: (await tx.select({ id: examTemplates.id }).from(examTemplates).where(eq(examTemplates.id, fx.template.id))).length,
      questions: (await tx.select({ id: examQuestions.id }).from(examQuestions).where(eq(examQuestions.template_id, fx.template.id))).length,
      batchesRead: (await tx.select({ id: examBatches.id }).from(examBatches).where(eq(examBatches.id, fx.batch.id))).length,
      released: rowsOf<{ id: string; title: string }>(await tx.execute(sql`select id, title from app.my_released_batches()`))
        .filter((row) => row.id === fx.batch.id)
        .map((row) => row.title),
    }));
  }
  const nothing = { submissions: [], marks: [], annotations: [], templates: 0, questions: 0, batchesRead: 0, released: [] };
  /** What a student reads of their own released script: it, its marks, its first marking's annotations, the paper and the batch's heading. */
  const ownScript = (fx: Fixture, student: Fixture["complete"], marks: number) => ({
    submissions: [student.submissionId],
    marks: Array.from({ length: marks }, () => student.submissionId),
    annotations: [`${student.submissionId} marking`],
    templates: 1,
    questions: 4,
    batchesRead: 0,
    released: [fx.batch.title],
  });

  it("before release a student reads nothing of the batch; after it only their own script; a narrower scope and a withdrawal close it again", async () => {
    const fx = await batchToRelease();
    const owner = as(school.teacher);
    for (const student of [fx.complete, fx.partial, fx.absent]) expect(await readsOf(student, fx), student.full_name).toEqual(nothing);

    const released = await owner.exam.release.release({ batch_id: fx.batch.id, scope: "all" });
    expect(released).toMatchObject({
      released: true,
      scope: "all",
      released_by: school.teacher.id,
      released_by_name: school.teacher.full_name,
      reviews_until: null,
      released_scripts: 2,
      complete_scripts: 1,
      incomplete_scripts: 1,
      scripts_without_work: 1,
      moderation_pending: false,
      can_release: true,
      can_withdraw: true,
    });
    expect(await readsOf(fx.complete, fx)).toEqual(ownScript(fx, fx.complete, 3));
    expect(await readsOf(fx.partial, fx)).toEqual({ ...ownScript(fx, fx.partial, 1) });
    // An absent student's script is not released: they sat nothing.
    expect(await readsOf(fx.absent, fx)).toEqual(nothing);
    // Students of the school who are not in the batch, and another school's student: nothing.
    for (const stranger of [school.student, otherSchool.student]) expect(await readsOf(stranger, fx)).toEqual(nothing);

    // Releasing again replaces the scope: the incomplete script is un-released, the complete one keeps its time.
    const [before] = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, fx.complete.submissionId)));
    const narrowed = await owner.exam.release.release({ batch_id: fx.batch.id, scope: "complete" });
    expect(narrowed).toMatchObject({ scope: "complete", released_scripts: 1, released_at: released.released_at });
    const [after] = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, fx.complete.submissionId)));
    expect(after!.released_at).toEqual(before!.released_at);
    expect(await readsOf(fx.complete, fx)).toEqual(ownScript(fx, fx.complete, 3));
    expect(await readsOf(fx.partial, fx)).toEqual(nothing);

    const withdrawn = await owner.exam.release.withdraw({ batch_id: fx.batch.id });
    expect(withdrawn).toMatchObject({ released: false, scope: null, released_at: null, released_by: null, reviews_until: null, released_scripts: 0 });
    for (const student of [fx.complete, fx.partial, fx.absent]) expect(await readsOf(student, fx), student.full_name).toEqual(nothing);
    // Idempotent.
    expect(await owner.exam.release.withdraw({ batch_id: fx.batch.id })).toEqual(withdrawn);
  });

  it("only the batch's owner releases and withdraws: 403 with a sentence for its colleague, head and marker, 404 for a student and another school", async () => {
    const fx = await batchToRelease();
    const refusal = batchRefusal("release", "not_writer", school.teacher.full_name);
    const withdrawRefusal = batchRefusal("withdraw_release", "not_writer", school.teacher.full_name);
    for (const person of [school.otherTeacher, school.head, school.admin]) {
      await expect(as(person).exam.release.release({ batch_id: fx.batch.id, scope: "all" })).rejects.toMatchObject({ code: "FORBIDDEN", message: refusal.message });
      await expect(as(person).exam.release.withdraw({ batch_id: fx.batch.id })).rejects.toMatchObject({ code: "FORBIDDEN", message: withdrawRefusal.message });
      // Staff read the release's state, without the owner's buttons.
      expect(await as(person).exam.release.status({ batch_id: fx.batch.id })).toMatchObject({ released: false, can_release: false, can_withdraw: false });
    }
    const outsiders: { id: string }[] = [fx.complete, school.student, otherSchool.teacher, otherSchool.head, otherSchool.admin, otherSchool.student];
    for (const person of outsiders) {
      await expect(as(person).exam.release.release({ batch_id: fx.batch.id, scope: "all" })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Batch not found" });
      await expect(as(person).exam.release.withdraw({ batch_id: fx.batch.id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Batch not found" });
      await expect(as(person).exam.release.status({ batch_id: fx.batch.id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Batch not found" });
    }
    expect(await as(school.teacher).exam.release.status({ batch_id: fx.batch.id })).toMatchObject({ released: false, released_scripts: 0, can_release: true });

    // Once released, a refused withdrawal leaves it released, and the student still reads their script.
    await as(school.teacher).exam.release.release({ batch_id: fx.batch.id, scope: "all" });
    for (const person of [school.otherTeacher, school.head, otherSchool.teacher, fx.complete]) {
      await expect(as(person).exam.release.withdraw({ batch_id: fx.batch.id })).rejects.toBeDefined();
    }
    expect(await readsOf(fx.complete, fx)).toEqual(ownScript(fx, fx.complete, 3));

    // The database holds it too: a head and a marker, who may otherwise change the batch's submissions,
    // cannot release or withdraw a script by writing its released_at in their own transaction.
    for (const writer of [school.head, school.admin]) {
      for (const releasedAt of [null, new Date()]) {
        await expect(
          asUser(database().db, writer.id, (tx) => tx.update(examSubmissions).set({ released_at: releasedAt }).where(eq(examSubmissions.id, fx.partial.submissionId))),
        ).rejects.toMatchObject({ cause: expect.objectContaining({ code: "42501" }) });
      }
    }
    expect(await readsOf(fx.complete, fx)).toEqual(ownScript(fx, fx.complete, 3));
  });

  it("a batch under moderation and not signed off is released only when the owner confirms; a signed-off one is released as it is", async () => {
    const fx = await batchToRelease();
    const owner = as(school.teacher);
    await as(school.head).exam.moderation.setSample({ batch_id: fx.batch.id, body: { submission_ids: [fx.complete.submissionId] } });
    expect((await owner.exam.release.status({ batch_id: fx.batch.id })).moderation_pending).toBe(true);
    await expect(owner.exam.release.release({ batch_id: fx.batch.id, scope: "all" })).rejects.toMatchObject({ code: "CONFLICT", message: UNMODERATED_RELEASE });
    await expect(owner.exam.release.release({ batch_id: fx.batch.id, scope: "all", confirm_unmoderated: false })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await readsOf(fx.complete, fx)).toEqual(nothing);
    expect(await owner.exam.release.status({ batch_id: fx.batch.id })).toMatchObject({ released: false, released_scripts: 0 });
    expect(await owner.exam.release.release({ batch_id: fx.batch.id, scope: "all", confirm_unmoderated: true })).toMatchObject({ released: true, released_scripts: 2 });
    await owner.exam.release.withdraw({ batch_id: fx.batch.id });

    await as(school.head).exam.moderation.signOff({ batch_id: fx.batch.id });
    expect((await owner.exam.release.status({ batch_id: fx.batch.id })).moderation_pending).toBe(false);
    expect(await owner.exam.release.release({ batch_id: fx.batch.id, scope: "complete" })).toMatchObject({ released: true, scope: "complete", signed_off: true, released_scripts: 1 });
    expect(await readsOf(fx.complete, fx)).toEqual(ownScript(fx, fx.complete, 3));
    expect(await owner.exam.release.withdraw({ batch_id: fx.batch.id })).toMatchObject({ released: false });
  });

  it("reviews open until a date in the future or not at all; an archived batch is not released but its release can be withdrawn; an empty scope is refused", async () => {
    const fx = await batchToRelease();
    const owner = as(school.teacher);
    await expect(owner.exam.release.release({ batch_id: fx.batch.id, scope: "all", reviews_until: "2001-01-01T00:00:00Z" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Reviews open until: must be in the future (or leave it empty for no reviews)",
    });
    expect((await owner.exam.release.status({ batch_id: fx.batch.id })).released).toBe(false);
    const until = new Date(Date.now() + 14 * 24 * 3600_000);
    expect((await owner.exam.release.release({ batch_id: fx.batch.id, scope: "all", reviews_until: until.toISOString() })).reviews_until).toEqual(until);
    const heading = await asUser(database().db, fx.complete.id, async (tx) => rowsOf<{ reviews_until: string | Date }>(await tx.execute(sql`select reviews_until from app.my_released_batches()`)));
    expect(new Date(heading[0]!.reviews_until)).toEqual(until);
    // Releasing again without a date closes reviews.
    expect((await owner.exam.release.release({ batch_id: fx.batch.id, scope: "all", reviews_until: null })).reviews_until).toBeNull();

    await owner.exam.batches.archive({ batch_id: fx.batch.id });
    await expect(owner.exam.release.release({ batch_id: fx.batch.id, scope: "all" })).rejects.toMatchObject({ code: "CONFLICT", message: batchRefusal("release", "archived").message });
    expect(await owner.exam.release.status({ batch_id: fx.batch.id })).toMatchObject({ released: true, archived: true, can_release: false, can_withdraw: true });
    expect(await owner.exam.release.withdraw({ batch_id: fx.batch.id })).toMatchObject({ released: false });
    expect(await readsOf(fx.complete, fx)).toEqual(nothing);

    const empty = await batchToRelease();
    await asService(database().db, (tx) => tx.update(examSubmissions).set({ status: "marking" }).where(eq(examSubmissions.id, empty.complete.submissionId)));
    await expect(owner.exam.release.release({ batch_id: empty.batch.id, scope: "complete" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "No script of this batch is completely marked yet: releasing only complete scripts would release nothing",
    });
  });

  describe("the REST face", () => {
    const call = (handler: typeof statusRoute, method: string, token: string, batchId: string, body?: unknown) =>
      callRest(handler as never, { method, path: `/api/exam/batches/${batchId}/release`, token, params: { batch_id: batchId }, body });

    it("GET, PUT and DELETE /api/exam/batches/{batch_id}/release: the owner releases and withdraws; others are told 403 or 404 with {detail}", async () => {
      const fx = await batchToRelease();
      const until = new Date(Date.now() + 7 * 24 * 3600_000).toISOString();
      const put = await call(releaseRoute, "PUT", school.teacher.token, fx.batch.id, { scope: "complete", reviews_until: until });
      expect(put.status).toBe(200);
      expect(await put.json()).toMatchObject({ released: true, scope: "complete", reviews_until: until, released_scripts: 1 });
      const read = await call(statusRoute, "GET", school.otherTeacher.token, fx.batch.id);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ released: true, can_withdraw: false });
      const refused = await call(withdrawRoute, "DELETE", school.otherTeacher.token, fx.batch.id);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ detail: batchRefusal("withdraw_release", "not_writer", school.teacher.full_name).message });
      for (const token of [school.student.token, otherSchool.teacher.token, otherSchool.admin.token, otherSchool.student.token]) {
        for (const [handler, method] of [
          [statusRoute, "GET"],
          [releaseRoute, "PUT"],
          [withdrawRoute, "DELETE"],
        ] as const) {
          const reply = await call(handler, method, token, fx.batch.id, method === "PUT" ? { scope: "all" } : undefined);
          expect(reply.status, method).toBe(404);
          expect(await reply.json()).toEqual({ detail: "Batch not found" });
        }
      }
      const moderated = await call(releaseRoute, "PUT", school.teacher.token, fx.batch.id, { scope: "all", confirm_unmoderated: true });
      expect(moderated.status).toBe(200);
      const deleted = await call(withdrawRoute, "DELETE", school.teacher.token, fx.batch.id);
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toMatchObject({ released: false });
    });

    it("hostile bodies (bad scopes, bad dates, extra fields, huge strings) are 400 with {detail}, never 5xx, and release nothing", async () => {
      const fx = await batchToRelease();
      const { seed, cases } = fuzzSettings(60);
      const runs = database().kind === "pglite" ? cases : Math.max(20, Math.floor(cases / 3));
      const huge = (length: number) => fc.string({ minLength: length, maxLength: length, unit: "grapheme" });
      const badScope = fc.oneof(
        hostileString.filter((text) => text !== "all" && text !== "complete"),
        fc.constantFrom("ALL", "Complete", " all", "all ", "none", "", null, 0, 1, true, [], {}, ["all"]),
        huge(20_000),
      );
      const badDate = fc.oneof(
        hostileString,
        fc.constantFrom("tomorrow", "2099-13-01T00:00:00Z", "2099-02-30T00:00:00Z", "2099-01-01", "2099-01-01T25:00:00Z", "2099-01-01T00:00:00", 0, true, {}, [], 4102444800000),
        fc.date({ min: new Date("1900-01-01"), max: new Date(Date.now() - 60_000), noInvalidDate: true }).map((date) => date.toISOString()),
        huge(30_000),
      );
      const extraKey = fc.oneof(fc.constantFrom("batch_id", "released_at", "released_by", "student_ids", "__proto__x", "Scope"), hostileString).filter(
        (key) => !["scope", "reviews_until", "confirm_unmoderated"].includes(key),
      );
      const hostileBody = fc.oneof(
        fc.record({ scope: badScope }).map((body) => ({ ...body, what: "scope" })),
        fc.record({ scope: fc.constantFrom("all", "complete"), reviews_until: badDate }).map((body) => ({ ...body, what: "date" })),
        fc.tuple(extraKey, fc.jsonValue()).map(([key, value]) => ({ scope: "all", [key]: value, what: "extra" })),
        fc.record({ scope: fc.constant("all"), confirm_unmoderated: fc.oneof(fc.constantFrom("true", 1, null, "yes"), hostileString) }).map((body) => ({ ...body, what: "confirm" })),
        fc.constantFrom<unknown>(null, [], "all", 42, true).map((body) => ({ body, what: "whole" })),
      );
      const failures: string[] = [];
      for (const sample of fc.sample(hostileBody, { seed, numRuns: runs })) {
        const { what, ...rest } = sample as { what: string; body?: unknown };
        const body = what === "whole" ? rest.body : rest;
        const reply = await call(releaseRoute, "PUT", school.teacher.token, fx.batch.id, JSON.stringify(body));
        const text = await reply.text();
        let detail: unknown;
        try {
          detail = (JSON.parse(text) as { detail?: unknown }).detail;
        } catch {
          detail = undefined;
        }
        if (reply.status !== 400 || typeof detail !== "string" || detail.length === 0 || detail.length > 2000) {
          failures.push(`${what} ${JSON.stringify(body).slice(0, 120)} → ${reply.status} ${text.slice(0, 160)}`);
        }
      }
      expect(failures, `FUZZ_SEED=${seed}`).toEqual([]);
      expect(await as(school.teacher).exam.release.status({ batch_id: fx.batch.id })).toMatchObject({ released: false, released_scripts: 0, reviews_until: null });
      expect(await readsOf(fx.complete, fx)).toEqual(nothing);
      // The same route releases with a valid body: the 400s were the body's.
      expect((await call(releaseRoute, "PUT", school.teacher.token, fx.batch.id, { scope: "all" })).status).toBe(200);
    });
  });
});
