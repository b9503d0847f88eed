import crypto from "node:crypto";
import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DELETE as removeRoute, PUT as saveRoute } from "../app/api/exam/annotations/[annotation_id]/route";
import { GET as listRoute } from "../app/api/exam/submissions/[submission_id]/annotations/route";
import { annotationSchema } from "../lib/rules/annotation";
import { asService, asUser } from "../server/db/rls";
import { examAnnotations, examBatches, examSubmissions } from "../server/db/schema";
import { batchRefusal } from "../server/exam/batch-gate";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings } from "./support/hostile-input";
import { type RunningRouteServer, startRouteServer } from "./support/route-server";

type Person = School["teacher"];

/**
 * Annotations on a script's scan (issue 35, item 1; server/exam/returns/annotations.ts): every kind saved
 * and read back, the blind second marking's layer, who may write, the batch gate, idempotent and
 * concurrent saves, a mark's annotation_shape_ids, and hostile shapes over HTTP (fast-check).
 */

const { seed, cases } = fuzzSettings(60);

/** The error a tRPC call ended with, as { code, message }. */
async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the call succeeded");
}

const stroke = (count: number) => Array.from({ length: count }, (_, index) => [(index % 100) / 100, ((index * 7) % 100) / 100, (index % 11) / 10]);

describeOnEachDatabase("annotations on a script's scan", (database) => {
  let school: School;
  let otherSchool: School;
  let server: RunningRouteServer;
  const db = () => database().db;
  const as = (person: { id: string }) => createCaller({ db: db(), user: { id: person.id } });

  beforeAll(async () => {
    school = await createSchool(db(), "Annotating");
    otherSchool = await createSchool(db(), "Elsewhere");
    // The three routes over real HTTP, as server.ts hands requests to them.
    server = await startRouteServer(async (request) => {
      const path = new URL(request.url).pathname;
      const shape = /^\/api\/exam\/annotations\/([^/]+)$/.exec(path);
      if (shape) {
        const params = { params: Promise.resolve({ annotation_id: decodeURIComponent(shape[1]!) }) };
        return request.method === "PUT" ? saveRoute(request, params) : removeRoute(request, params);
      }
      const list = /^\/api\/exam\/submissions\/([^/]+)\/annotations$/.exec(path);
      if (list) return listRoute(request, { params: Promise.resolve({ submission_id: decodeURIComponent(list[1]!) }) });
      return new Response("no route", { status: 599 });
    });
  });
  afterAll(() => server?.close());

  /** A batch of the teacher's over the sample canvas (3 pages), two students, the admin invited as a marker, a rubric item on question 2. */
  async function batchOf(owner: Person = school.teacher, at: School = school) {
    const teacher = as(owner);
    const template = await teacher.exam.templates.create({ title: `Annotated ${crypto.randomUUID().slice(0, 6)}`, page_count: 3 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(db(), at, 2);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    await teacher.exam.markers.invite({ batch_id: batch.id, body: { user_id: at.admin.id } });
    const item = await teacher.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: "Correct gradient", points: 2 } });
    const scripts = (await teacher.exam.batches.queue({ batch_id: batch.id })).submissions.map((submission) => submission.id);
    return { batch, canvas, item, scripts, students: roster.students };
  }

  const save = (person: Person, id: string, body: Record<string, unknown>) => as(person).exam.annotations.save({ annotation_id: id, body: body as never });
  const list = (person: Person, submissionId: string, layer?: "marking" | "second_marking") =>
    as(person).exam.annotations.list({ submission_id: submissionId, ...(layer ? { layer } : {}) });
  const rowsOf = (submissionId: string) => asService(db(), (tx) => tx.select().from(examAnnotations).where(eq(examAnnotations.submission_id, submissionId)));

  const http = (method: string, path: string, token: string, body?: string) =>
    fetch(`${server.baseURL}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body });

  it("saves every kind and reads it back as drawn, in the order drawn; a stamp takes its rubric item's question and text", async () => {
    const { canvas, item, scripts } = await batchOf();
    const script = scripts[0]!;
    const shapes = [
      { kind: "tick", page: 1, geometry: { x: 0.25, y: 0.5 }, question_id: canvas.ids.q1a },
      { kind: "cross", page: 1, geometry: { x: 0, y: 1 } },
      { kind: "text", page: 2, geometry: { x: 0.9, y: 0.1 }, text: "  Show your working — ½ mark lost  ", question_id: canvas.ids.q1b },
      { kind: "pen", page: 3, geometry: { points: stroke(50) } },
      { kind: "highlight", page: 3, geometry: { x: 0.1, y: 0.2, width: 0.9, height: 0.8 } },
      { kind: "stamp", page: 3, geometry: { x: 0.5, y: 0.5 }, rubric_item_id: item.id },
    ];
    const ids: string[] = [];
    for (const shape of shapes) {
      const id = crypto.randomUUID();
      ids.push(id);
      const saved = await save(school.teacher, id, { submission_id: script, ...shape });
      expect(saved).toMatchObject({ id, submission_id: script, page: shape.page, kind: shape.kind, layer: "marking", geometry: shape.geometry, author_id: school.teacher.id });
    }
    const read = await list(school.teacher, script);
    expect(read.layer).toBe("marking");
    expect(read.annotations.map((shape) => shape.id)).toEqual(ids);
    expect(read.annotations.map((shape) => shape.geometry)).toEqual(shapes.map((shape) => shape.geometry));
    expect(read.annotations[2]).toMatchObject({ text: "Show your working — ½ mark lost", question_id: canvas.ids.q1b });
    expect(read.annotations[5]).toMatchObject({ kind: "stamp", text: "Correct gradient", rubric_item_id: item.id, question_id: canvas.ids.q2 });
    expect(read.annotations[1]).toMatchObject({ text: null, question_id: null, rubric_item_id: null });
    // What the server keeps is a shape the marking screen's schema takes back into its queue as it is.
    for (const shape of read.annotations) {
      const { id, submission_id, page, kind, geometry, text, question_id, rubric_item_id } = shape;
      const again = { id, submission_id, page, kind, geometry, text: text ?? undefined, question_id: question_id ?? undefined, rubric_item_id: rubric_item_id ?? undefined };
      expect(annotationSchema.parse(again), kind).toEqual(Object.fromEntries(Object.entries(again).filter(([, value]) => value !== undefined)));
    }
    // Over REST, the same list.
    const reply = await http("GET", `/api/exam/submissions/${script}/annotations`, school.teacher.token);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { annotations: { id: string }[] }).annotations.map((shape) => shape.id)).toEqual(ids);
  });

  it("is idempotent: the same id saved again is one shape, replaced, with its first author and creation time", async () => {
    const { scripts } = await batchOf();
    const id = crypto.randomUUID();
    const first = await save(school.teacher, id, { submission_id: scripts[0], kind: "tick", page: 1, geometry: { x: 0.1, y: 0.1 } });
    const again = await save(school.teacher, id, { submission_id: scripts[0], kind: "tick", page: 1, geometry: { x: 0.1, y: 0.1 } });
    // A marker moves it.
    const moved = await save(school.admin, id, { submission_id: scripts[0], kind: "tick", page: 2, geometry: { x: 0.7, y: 0.3 } });
    expect(again.created_at).toEqual(first.created_at);
    expect(moved).toMatchObject({ id, page: 2, geometry: { x: 0.7, y: 0.3 }, author_id: school.teacher.id, created_at: first.created_at });
    expect(await rowsOf(scripts[0]!)).toHaveLength(1);
  });

  it("two saves of one id at once make one shape, and neither fails", async () => {
    const { scripts } = await batchOf();
    for (let round = 0; round < 3; round++) {
      const id = crypto.randomUUID();
      const saves = await Promise.allSettled(
        [0.1, 0.2, 0.3, 0.4].map((x) => save(school.teacher, id, { submission_id: scripts[1], kind: "cross", page: 1, geometry: { x, y: 0.5 } })),
      );
      expect(saves.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      expect((await rowsOf(scripts[1]!)).filter((row) => row.id === id)).toHaveLength(1);
    }
    expect(await rowsOf(scripts[1]!)).toHaveLength(3);
    // One id sent for two scripts at once (the locks of two scripts do not order them): one is stored, the other not found, never an error.
    for (let round = 0; round < 3; round++) {
      const id = crypto.randomUUID();
      const saves = await Promise.allSettled(scripts.map((script) => save(school.teacher, id, { submission_id: script, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } })));
      expect(saves.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const refused = saves.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      expect(refused.map((outcome) => (outcome.reason as TRPCError).message)).toEqual(["Annotation not found"]);
      const stored = await asService(db(), (tx) => tx.select().from(examAnnotations).where(eq(examAnnotations.id, id)));
      expect(stored).toHaveLength(1);
    }
  });

  it("an id that names a shape of another script is not found there, and the shape stays as it was", async () => {
    const { scripts } = await batchOf();
    const id = crypto.randomUUID();
    await save(school.teacher, id, { submission_id: scripts[0], kind: "tick", page: 1, geometry: { x: 0.1, y: 0.1 } });
    expect(await refusal(save(school.teacher, id, { submission_id: scripts[1], kind: "cross", page: 2, geometry: { x: 0.9, y: 0.9 } }))).toEqual({
      code: "NOT_FOUND",
      message: "Annotation not found",
    });
    expect(await rowsOf(scripts[1]!)).toHaveLength(0);
    expect(await rowsOf(scripts[0]!)).toMatchObject([{ id, kind: "tick", page: 1, geometry: { x: 0.1, y: 0.1 } }]);
  });

  it("refuses a page beyond the script's and a question or rubric item not of the batch's paper, with sentences", async () => {
    const { canvas, item, scripts } = await batchOf();
    const other = await batchOf();
    const base = { submission_id: scripts[0], kind: "tick", geometry: { x: 0.5, y: 0.5 } };
    expect(await refusal(save(school.teacher, crypto.randomUUID(), { ...base, page: 4 }))).toEqual({ code: "BAD_REQUEST", message: "Page: this script has 3 pages, not 4" });
    expect(await refusal(save(school.teacher, crypto.randomUUID(), { ...base, page: 1, question_id: other.canvas.ids.q2 }))).toEqual({
      code: "BAD_REQUEST",
      message: "Question: not a question of this batch's paper",
    });
    expect(await refusal(save(school.teacher, crypto.randomUUID(), { ...base, page: 1, question_id: crypto.randomUUID() }))).toEqual({
      code: "BAD_REQUEST",
      message: "Question: not a question of this batch's paper",
    });
    const stamp = { submission_id: scripts[0], kind: "stamp", page: 1, geometry: { x: 0.5, y: 0.5 } };
    expect((await refusal(save(school.teacher, crypto.randomUUID(), { ...stamp, rubric_item_id: other.item.id }))).message).toBe(
      "Rubric item: not an item of this batch's paper's rubrics",
    );
    expect((await refusal(save(school.teacher, crypto.randomUUID(), { ...stamp, rubric_item_id: item.id, question_id: canvas.ids.q1a }))).message).toBe(
      "Rubric item: not an item of the question the shape names",
    );
    expect((await refusal(save(school.teacher, crypto.randomUUID(), stamp))).message).toBe("Rubric item: a stamp names the rubric item it applies");
    expect(await rowsOf(scripts[0]!)).toHaveLength(0);
  });

  it("the owner, a department head and an invited marker annotate; a colleague is refused with the gate's sentence; a student and another school are not found", async () => {
    const { scripts } = await batchOf();
    const body = { submission_id: scripts[0], kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } };
    for (const writer of [school.teacher, school.head, school.admin]) await save(writer, crypto.randomUUID(), body);
    expect(await refusal(save(school.otherTeacher, crypto.randomUUID(), body))).toEqual({
      code: "FORBIDDEN",
      message: batchRefusal("annotate", "not_writer", school.teacher.full_name).message,
    });
    const shapeId = (await list(school.teacher, scripts[0]!)).annotations[0]!.id;
    // A colleague reads the first marking (as they read the marks), and cannot remove it.
    expect((await list(school.otherTeacher, scripts[0]!)).annotations).toHaveLength(3);
    expect((await refusal(as(school.otherTeacher).exam.annotations.remove({ annotation_id: shapeId }))).code).toBe("FORBIDDEN");
    for (const outsider of [school.student, otherSchool.teacher, otherSchool.head, otherSchool.student]) {
      expect(await refusal(list(outsider, scripts[0]!)), outsider.email).toEqual({ code: "NOT_FOUND", message: "Submission not found" });
      expect(await refusal(save(outsider, crypto.randomUUID(), body)), outsider.email).toEqual({ code: "NOT_FOUND", message: "Submission not found" });
      expect(await refusal(as(outsider).exam.annotations.remove({ annotation_id: shapeId })), outsider.email).toEqual({ code: "NOT_FOUND", message: "Annotation not found" });
      // Over REST: the contract's {detail}.
      const reply = await http("PUT", `/api/exam/annotations/${crypto.randomUUID()}`, outsider.token, JSON.stringify(body));
      expect(reply.status).toBe(404);
      expect(await reply.json()).toEqual({ detail: "Submission not found" });
    }
    expect(await rowsOf(scripts[0]!)).toHaveLength(3);
    // A malformed id is not found; a shape removed is gone, and removing it again is not found.
    expect((await http("DELETE", "/api/exam/annotations/not-a-uuid", school.teacher.token)).status).toBe(404);
    expect(await as(school.head).exam.annotations.remove({ annotation_id: shapeId })).toEqual({ id: shapeId });
    expect((await http("DELETE", `/api/exam/annotations/${shapeId}`, school.teacher.token)).status).toBe(404);
    expect(await rowsOf(scripts[0]!)).toHaveLength(2);
  });

  it("a blind second marker draws on their own layer, sees only their own shapes there, and nobody else sees them", async () => {
    const { batch, canvas, scripts } = await batchOf();
    const [sampled, unsampled] = scripts as [string, string];
    // The first marking's shape is the invited marker's (a writer, not a moderator of the batch).
    const firstShape = crypto.randomUUID();
    await save(school.admin, firstShape, { submission_id: sampled, kind: "text", page: 1, geometry: { x: 0.2, y: 0.2 }, text: "first-marker-remark-91c" });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: sampled, question_id: canvas.ids.q2, awarded_marks: 3, confirmed: true } });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: unsampled, question_id: canvas.ids.q2, awarded_marks: 3, confirmed: true } });
    await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: [sampled] } });

    // The colleague (staff, not a writer of the batch) second-marks and annotates the sampled script.
    const secondShape = crypto.randomUUID();
    const second = { submission_id: sampled, kind: "cross", page: 1, layer: "second_marking", geometry: { x: 0.6, y: 0.6 } };
    expect(await save(school.otherTeacher, secondShape, second)).toMatchObject({ layer: "second_marking", author_id: school.otherTeacher.id });

    const ownLayer = await list(school.otherTeacher, sampled, "second_marking");
    expect(ownLayer.annotations.map((shape) => shape.id)).toEqual([secondShape]);
    expect(JSON.stringify(ownLayer)).not.toContain("first-marker-remark-91c");
    expect(JSON.stringify(ownLayer)).not.toContain(school.admin.id);
    // The first marker's reads carry nothing of the second marking, nor the owner's: neither layer.
    for (const firstMarker of [school.admin, school.teacher]) {
      expect((await list(firstMarker, sampled)).annotations.map((shape) => shape.id)).toEqual([firstShape]);
      expect((await list(firstMarker, sampled, "second_marking")).annotations).toEqual([]);
    }
    // Row-level security says the same to the first marker, whatever the application asks.
    const seenByFirstMarker = await asUser(db(), school.admin.id, (tx) => tx.select({ id: examAnnotations.id }).from(examAnnotations).where(eq(examAnnotations.submission_id, sampled)));
    expect(seenByFirstMarker.map((row) => row.id)).toEqual([firstShape]);

    // Nobody but its author moves or removes a second marking's shape; its layer does not change.
    expect(await refusal(save(school.teacher, secondShape, { ...second, layer: undefined }))).toEqual({ code: "NOT_FOUND", message: "Annotation not found" });
    expect(await refusal(save(school.admin, secondShape, second))).toEqual({ code: "NOT_FOUND", message: "Annotation not found" });
    expect((await refusal(as(school.head).exam.annotations.remove({ annotation_id: secondShape }))).code).toBe("NOT_FOUND");
    expect((await refusal(save(school.admin, firstShape, { ...second }))).code).toBe("CONFLICT");
    // A script outside the sample takes no second marking.
    expect(await refusal(save(school.otherTeacher, crypto.randomUUID(), { ...second, submission_id: unsampled }))).toEqual({
      code: "CONFLICT",
      message: "This script is not in the batch's moderation sample: a second marker annotates only sampled scripts",
    });
    expect(await as(school.otherTeacher).exam.annotations.remove({ annotation_id: secondShape })).toEqual({ id: secondShape });
    expect((await rowsOf(sampled)).map((row) => row.id)).toEqual([firstShape]);
  });

  it("a student whose script is released reads its first marking's shapes, never the second marking's, and the annotation operations stay staff's", async () => {
    const { batch, canvas, scripts } = await batchOf();
    const script = scripts[0]!;
    const firstShape = crypto.randomUUID();
    await save(school.teacher, firstShape, { submission_id: script, kind: "text", page: 1, geometry: { x: 0.2, y: 0.2 }, text: "Well argued" });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script, question_id: canvas.ids.q2, awarded_marks: 4, confirmed: true } });
    await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: [script] } });
    const secondShape = crypto.randomUUID();
    await save(school.otherTeacher, secondShape, { submission_id: script, kind: "cross", page: 1, layer: "second_marking", geometry: { x: 0.6, y: 0.6 } });
    // Released as the release slice releases (exam_batches.released_at and the script's own).
    const studentId = await asService(db(), async (tx) => {
      await tx.update(examBatches).set({ released_at: new Date(), released_by: school.teacher.id, release_scope: "all" }).where(eq(examBatches.id, batch.id));
      const [released] = await tx.update(examSubmissions).set({ released_at: new Date() }).where(eq(examSubmissions.id, script)).returning();
      return released!.student_id!;
    });
    const student = { id: studentId } as Person;
    const seen = await asUser(db(), studentId, (tx) => tx.select({ id: examAnnotations.id }).from(examAnnotations).where(eq(examAnnotations.submission_id, script)));
    expect(seen.map((row) => row.id)).toEqual([firstShape]);
    expect(await refusal(list(student, script))).toEqual({ code: "NOT_FOUND", message: "Submission not found" });
    expect(await refusal(save(student, crypto.randomUUID(), { submission_id: script, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } }))).toEqual({
      code: "NOT_FOUND",
      message: "Submission not found",
    });
    expect(await refusal(as(student).exam.annotations.remove({ annotation_id: firstShape }))).toEqual({ code: "NOT_FOUND", message: "Annotation not found" });
    expect((await rowsOf(script)).map((row) => row.id).sort()).toEqual([firstShape, secondShape].sort());
  });

  it("a signed-off batch refuses every save and removal with the gate's sentence, and keeps its shapes", async () => {
    const { batch, scripts } = await batchOf();
    const id = crypto.randomUUID();
    const body = { submission_id: scripts[0], kind: "highlight", page: 1, geometry: { x: 0.1, y: 0.1, width: 0.2, height: 0.2 } };
    await save(school.teacher, id, body);
    await as(school.head).exam.moderation.signOff({ batch_id: batch.id });
    const signedOff = { code: "CONFLICT", message: batchRefusal("annotate", "signed_off").message };
    expect(await refusal(save(school.teacher, crypto.randomUUID(), body))).toEqual(signedOff);
    expect(await refusal(save(school.teacher, id, { ...body, page: 2 }))).toEqual(signedOff);
    expect(await refusal(as(school.teacher).exam.annotations.remove({ annotation_id: id }))).toEqual(signedOff);
    expect(await rowsOf(scripts[0]!)).toMatchObject([{ id, page: 1 }]);
    // Reads go on.
    expect((await list(school.teacher, scripts[0]!)).annotations).toHaveLength(1);
  });

  it("a mark keeps only the annotation ids that name a shape of the first marking on its script, in their order", async () => {
    const { batch, canvas, scripts } = await batchOf();
    const [script, other] = scripts as [string, string];
    const kept = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of kept) await save(school.teacher, id, { submission_id: script, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } });
    const elsewhere = crypto.randomUUID();
    await save(school.teacher, elsewhere, { submission_id: other, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: script, question_id: canvas.ids.q1a, awarded_marks: 1, confirmed: true } });
    await as(school.head).exam.moderation.setSample({ batch_id: batch.id, body: { submission_ids: [script] } });
    const secondShape = crypto.randomUUID();
    await save(school.otherTeacher, secondShape, { submission_id: script, kind: "cross", page: 1, layer: "second_marking", geometry: { x: 0.5, y: 0.5 } });

    const named = [kept[1]!.toUpperCase(), crypto.randomUUID(), "shape:1", elsewhere, kept[0]!, secondShape];
    const mark = await as(school.teacher).exam.marks.upsert({
      mark_id: crypto.randomUUID(),
      body: { submission_id: script, question_id: canvas.ids.q2, awarded_marks: 2, annotation_shape_ids: named },
    });
    expect(mark).toMatchObject({ awarded_marks: 2, annotation_shape_ids: [kept[1]!.toUpperCase(), kept[0]!] });
    // None left is still a saved mark: the mark is what matters.
    const none = await as(school.teacher).exam.marks.upsert({
      mark_id: mark.id,
      body: { submission_id: script, question_id: canvas.ids.q2, awarded_marks: 3, annotation_shape_ids: ["nothing"] },
    });
    expect(none).toMatchObject({ awarded_marks: 3, annotation_shape_ids: [] });
  });

  it("a stroke of 4000 points, as a pointer gives them (full doubles), saves over HTTP rounded; one of 4001 is a 400 and nothing is written", async () => {
    const { scripts } = await batchOf();
    const id = crypto.randomUUID();
    // The worst case for its size: every number with 17 significant digits.
    const pointer = (count: number) => Array.from({ length: count }, () => [Math.random(), Math.random(), Math.random()]);
    const drawn = pointer(4000);
    const body = (points: number[][]) => JSON.stringify({ submission_id: scripts[0], kind: "pen", page: 1, geometry: { points } });
    const saved = await http("PUT", `/api/exam/annotations/${id}`, school.teacher.token, body(drawn));
    expect(saved.status).toBe(200);
    const points = ((await saved.json()) as { geometry: { points: number[][] } }).geometry.points;
    expect(points).toHaveLength(4000);
    expect(points[17]).toEqual([Math.round(drawn[17]![0]! * 1e5) / 1e5, Math.round(drawn[17]![1]! * 1e5) / 1e5, Math.round(drawn[17]![2]! * 1e3) / 1e3]);
    expect((await list(school.teacher, scripts[0]!)).annotations[0]!.geometry).toEqual({ points });
    const tooLong = await http("PUT", `/api/exam/annotations/${crypto.randomUUID()}`, school.teacher.token, body(pointer(4001)));
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toEqual({ detail: "Geometry, points: a stroke has at most 4000 points; split a longer one" });
    expect(await rowsOf(scripts[0]!)).toHaveLength(1);
  }, 120_000); // 8,000 points parsed and two ~200 kB rows written through PGlite: seconds alone, far more on a loaded machine

  it("answers hostile shapes over HTTP with a 400 and the contract's {detail}, writes nothing, never a 500", async () => {
    const { canvas, scripts } = await batchOf();
    const script = scripts[0]!;
    const valid: Record<string, Record<string, unknown>> = {
      tick: { submission_id: script, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } },
      text: { submission_id: script, kind: "text", page: 1, geometry: { x: 0.5, y: 0.5 }, text: "ok" },
      pen: { submission_id: script, kind: "pen", page: 1, geometry: { points: stroke(3) } },
      highlight: { submission_id: script, kind: "highlight", page: 1, geometry: { x: 0.2, y: 0.2, width: 0.3, height: 0.3 } },
      stamp: { submission_id: script, kind: "stamp", page: 1, geometry: { x: 0.5, y: 0.5 }, rubric_item_id: crypto.randomUUID(), question_id: canvas.ids.q2 },
    };
    const RAW = "__raw__";
    /** A JSON value written as raw text (what JSON.stringify cannot say: 1e999, NaN, deep nesting). */
    const raw = (text: string) => `${RAW}${text}${RAW}`;
    const encode = (body: unknown) => JSON.stringify(body).replace(new RegExp(`"${RAW}(.*?)${RAW}"`, "gs"), (_, text: string) => JSON.parse(`"${text}"`) as string);
    const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

    /** A coordinate, pressure or size that is never a fraction of the page. */
    const badFraction = fc.oneof(
      fc.double({ min: 1.000001, max: 1e308, noNaN: true }),
      fc.double({ min: -1e308, max: -1e-9, noNaN: true }),
      fc.constantFrom(raw("1e999"), raw("-1e999"), raw("NaN"), raw("Infinity"), raw(deep(40)), raw(deep(5000)), "0.5", "", null, true, [], {}, [0.5], { x: 0.5 }),
    );
    const hostileKey = fc.constantFrom("z", "__proto__", "constructor", "prototype", "author_id", "batch_id", "layer ", "x".repeat(10_000), "\u0000");
    const mutation = fc.oneof(
      // A coordinate of a point or a highlight out of the page, or not a number.
      fc.record({ kind: fc.constantFrom("tick", "text", "stamp", "highlight"), field: fc.constantFrom("x", "y"), value: badFraction }).map(({ kind, field, value }) => ({
        kind,
        change: (body: Record<string, unknown>) => ({ ...body, geometry: { ...(body.geometry as object), [field]: value } }),
      })),
      fc.record({ field: fc.constantFrom("width", "height"), value: fc.oneof(badFraction, fc.constantFrom(0, 0.81, 1)) }).map(({ field, value }) => ({
        kind: "highlight",
        change: (body: Record<string, unknown>) => ({ ...body, geometry: { ...(body.geometry as object), [field]: value } }),
      })),
      // A stroke point out of the page, a bad pressure, a point of the wrong arity, too few or too many points.
      fc.record({ index: fc.nat(2), slot: fc.nat(2), value: badFraction }).map(({ index, slot, value }) => ({
        kind: "pen",
        change: (body: Record<string, unknown>) => {
          const points = stroke(3) as unknown[][];
          points[index]![slot] = value;
          return { ...body, geometry: { points } };
        },
      })),
      fc.constantFrom([], [0.5], [0.5, 0.5], [0.5, 0.5, 0.5, 0.5], "0.5,0.5,0.5", null, { x: 0.5, y: 0.5, p: 0.5 }).map((point) => ({
        kind: "pen",
        change: (body: Record<string, unknown>) => ({ ...body, geometry: { points: [[0.1, 0.1, 0.1], point] } }),
      })),
      fc.constantFrom(0, 1, 4001, 20_000, 200_000).map((count) => ({
        kind: "pen",
        change: (body: Record<string, unknown>) => ({ ...body, geometry: { points: stroke(count) } }),
      })),
      // Unknown keys at every level, deep or long values in them.
      fc.record({ level: fc.constantFrom("body", "geometry"), key: hostileKey, value: fc.constantFrom(1, "x", raw(deep(60)), null) }).map(({ level, key, value }) => ({
        kind: "tick",
        change: (body: Record<string, unknown>) =>
          level === "body" ? { ...body, [key]: value } : { ...body, geometry: { ...(body.geometry as object), [key]: value } },
      })),
      // The geometry of another kind, or not an object at all.
      fc.constantFrom({ points: stroke(3) }, { x: 0.5, y: 0.5 }, null, [], "x", raw(deep(3000))).map((geometry) => ({
        kind: "highlight",
        change: (body: Record<string, unknown>) => ({ ...body, geometry }),
      })),
      // Text: too long, with NUL or a lone surrogate, blank, on a kind that takes none, absent from a comment.
      fc.constantFrom("x".repeat(2001), "é".repeat(1_000_000), "a\u0000b", "\ud800", "   ", raw(deep(100))).map((text) => ({
        kind: "text",
        change: (body: Record<string, unknown>) => ({ ...body, text }),
      })),
      fc.constantFrom("tick", "pen", "highlight").map((kind) => ({ kind, change: (body: Record<string, unknown>) => ({ ...body, text: "a remark" }) })),
      fc.constant({ kind: "text", change: (body: Record<string, unknown>) => ({ ...body, text: undefined }) }),
      // The kind, the page and the ids.
      fc.constantFrom("circle", "", "TICK", null, 1, raw(deep(50))).map((kind) => ({ kind: "tick", change: (body: Record<string, unknown>) => ({ ...body, kind }) })),
      fc.constantFrom(0, -1, 2001, 1.5, "1", 2 ** 31, raw("1e999"), null).map((page) => ({ kind: "tick", change: (body: Record<string, unknown>) => ({ ...body, page }) })),
      fc.constantFrom("x", "", null, 42, "\u0000").map((value) => ({ kind: "stamp", change: (body: Record<string, unknown>) => ({ ...body, rubric_item_id: value }) })),
      fc.constantFrom("x", "", null, 42, "first").map((value) => ({ kind: "tick", change: (body: Record<string, unknown>) => ({ ...body, layer: value }) })),
    );

    const before = (await list(school.teacher, script)).annotations.length;
    const ids: string[] = [];
    await fc.assert(
      fc.asyncProperty(mutation, async ({ kind, change }) => {
        const id = crypto.randomUUID();
        ids.push(id);
        const body = encode(change(valid[kind]!));
        const reply = await http("PUT", `/api/exam/annotations/${id}`, school.teacher.token, body);
        const text = await reply.text();
        expect(reply.status, `${body.slice(0, 300)} → ${text.slice(0, 300)}`).toBe(400);
        const detail = (JSON.parse(text) as { detail?: unknown }).detail;
        expect(typeof detail === "string" && detail.length > 0, text.slice(0, 300)).toBe(true);
        expect(Object.keys(JSON.parse(text) as object)).toEqual(["detail"]);
      }),
      { seed, numRuns: cases },
    );
    expect((await list(school.teacher, script)).annotations).toHaveLength(before);
    const stored = await asService(db(), (tx) => tx.select({ id: examAnnotations.id }).from(examAnnotations));
    expect(stored.filter((row) => ids.includes(row.id))).toEqual([]);
    // The script itself is untouched by all of it.
    const [row] = await asService(db(), (tx) => tx.select({ status: examSubmissions.status }).from(examSubmissions).where(eq(examSubmissions.id, script)));
    expect(row!.status).toBe("absent");
  });
});
