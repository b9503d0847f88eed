import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { POST } from "../app/api/exam/templates/[template_id]/graph-sync/route";
import { POST as createTemplateRoute } from "../app/api/exam/templates/route";
import type { Tx } from "../server/db/client";
import { asService, asUser } from "../server/db/rls";
import { backgroundJobs, examPapers, examQuestions, examResponseAreas, examTemplates } from "../server/db/schema";
import { graphStore } from "../server/graph/index";
import { syntheticExamCode } from "../server/graph/projection";
import { enqueueTemplateProjection, projectTemplateJob } from "../server/graph/projection-job";
import { writePersonalNodesJob } from "../server/graph/personal-node";
import { allJobKinds } from "../server/composition/job-kinds";
import { runDueJobs } from "../server/jobs/run";
import { logger } from "../server/logger";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const uuid = () => crypto.randomUUID();

interface Canvas {
  questions: { id: string; parent_id: string | null; label: string; order: number; spec_ref?: string | null; is_container?: boolean }[];
  areas: { id: string; question_id: string; page: number; kind?: "response" | "context" }[];
}

describeOnEachDatabase("graph projection and POST /api/exam/templates/{id}/graph-sync", (database) => {
  let school: School;
  let otherSchool: School;
  const db = () => database().db;
  const store = () => graphStore(db());
  const graphDb = () => school.institute.curriculum_db_name;

  beforeAll(async () => {
    school = await createSchool(db(), "Projection");
    otherSchool = await createSchool(db(), "Elsewhere");
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /**
   * A template owned by a teacher (the school's teacher unless given), written as that teacher (row-level
   * security applies).
   */
  async function createTemplate(
    canvas: Canvas,
    fields: Partial<typeof examTemplates.$inferInsert> = {},
    owner: { teacher: School["teacher"]; institute: School["institute"] } = school,
  ) {
    return asUser(db(), owner.teacher.id, async (tx) => {
      const [template] = await tx
        .insert(examTemplates)
        .values({ institute_id: owner.institute.id, owner_id: owner.teacher.id, title: "Projection paper", page_count: 4, ...fields })
        .returning();
      await replaceCanvas(tx, template!.id, canvas);
      return template!.id;
    });
  }

  /** Replaces the template's canvas, as a save would (without projecting it). */
  const writeCanvas = (templateId: string, canvas: Canvas, owner = school.teacher) =>
    asUser(db(), owner.id, (tx) => replaceCanvas(tx, templateId, canvas));

  async function replaceCanvas(tx: Tx, templateId: string, canvas: Canvas) {
    await tx.delete(examQuestions).where(eq(examQuestions.template_id, templateId));
    // Parents before parts.
    const ordered = [...canvas.questions].sort((a, b) => Number(Boolean(a.parent_id)) - Number(Boolean(b.parent_id)));
    if (ordered.length > 0) await tx.insert(examQuestions).values(ordered.map((question) => ({ ...question, template_id: templateId })));
    if (canvas.areas.length > 0) {
      await tx.insert(examResponseAreas).values(
        canvas.areas.map((area) => ({ ...area, template_id: templateId, x: 0.1, y: 0.1, width: 0.5, height: 0.2 })),
      );
    }
  }

  const sync = (templateId: string, token: string | null) =>
    POST(
      new Request(`http://localhost/api/exam/templates/${templateId}/graph-sync`, {
        method: "POST",
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
      { params: Promise.resolve({ template_id: templateId }) },
    );

  const childIds = async (id: string, nodeType?: string, database = graphDb()) =>
    (await store().listChildren(database, id, nodeType ? { nodeType } : {}))?.map((child) => `${child.relationship} ${child.id}`);

  // Question 1 (container, assesses S/1) with parts 1a (S/2) and 1b; question 2 a leaf with two areas.
  const ids = { q1: uuid(), q1a: uuid(), q1b: uuid(), q2: uuid(), q3: uuid(), a1a: uuid(), a1b: uuid(), a2: uuid(), a2context: uuid(), a3: uuid() };
  const firstCanvas: Canvas = {
    questions: [
      { id: ids.q1, parent_id: null, label: "1", order: 1, spec_ref: "SPEC-X/1", is_container: true },
      { id: ids.q1a, parent_id: ids.q1, label: "1a", order: 2, spec_ref: "SPEC-X/2" },
      { id: ids.q1b, parent_id: ids.q1, label: "1b", order: 3 },
      { id: ids.q2, parent_id: null, label: "2", order: 4 },
    ],
    areas: [
      { id: ids.a1a, question_id: ids.q1a, page: 1 },
      { id: ids.a1b, question_id: ids.q1b, page: 1 },
      { id: ids.a2, question_id: ids.q2, page: 2 },
      { id: ids.a2context, question_id: ids.q2, page: 2, kind: "context" },
    ],
  };
  let templateId: string;

  it("projects the template for its owner and answers the counts", async () => {
    templateId = await createTemplate(firstCanvas);
    const response = await sync(templateId, school.teacher.token);
    expect(response.status).toBe(200);
    const examCode = syntheticExamCode(templateId);
    expect(await response.json()).toEqual({ exam_code: examCode, questions: 2, parts: 2, regions: 4, assesses: 2, spec_linked: false });

    expect(await childIds(examCode)).toEqual([`HAS_QUESTION ${ids.q1}`, `HAS_QUESTION ${ids.q2}`]);
    expect(await childIds(ids.q1, "Part")).toEqual([`HAS_PART ${ids.q1a}`, `HAS_PART ${ids.q1b}`]);
    expect(await childIds(ids.q1, "SpecificationPoint")).toEqual(["ASSESSES SPEC-X/1"]);
    expect((await childIds(ids.q1a))!.sort()).toEqual([`ASSESSES SPEC-X/2`, `HAS_REGION ${ids.a1a}`].sort());
    expect((await childIds(ids.q2))!.sort()).toEqual([`HAS_REGION ${ids.a2}`, `HAS_REGION ${ids.a2context}`].sort());
    const part = await store().getNode(graphDb(), ids.q1a);
    expect(part).toMatchObject({ node_type: "Part", properties: { label: "1a", order: 2, spec_ref: "SPEC-X/2" } });
    expect((await store().getNode(graphDb(), ids.a2context))?.properties).toMatchObject({ kind: "context", page: 2 });
  });

  it("replaces the paper's questions, parts and regions on a re-sync and leaves nothing stale", async () => {
    // 1b and its area are deleted, 1a moves under a new question 3 (a new area), question 2 loses its context area.
    await writeCanvas(templateId, {
      questions: [
        { id: ids.q1, parent_id: null, label: "1", order: 1, is_container: false },
        { id: ids.q2, parent_id: null, label: "2", order: 2, spec_ref: "SPEC-X/3" },
        { id: ids.q3, parent_id: null, label: "3", order: 3, is_container: true },
        { id: ids.q1a, parent_id: ids.q3, label: "3a", order: 4 },
      ],
      areas: [
        { id: ids.a2, question_id: ids.q2, page: 2 },
        { id: ids.a3, question_id: ids.q1a, page: 3 },
      ],
    });
    const response = await sync(templateId, school.teacher.token);
    expect(await response.json()).toMatchObject({ questions: 3, parts: 1, regions: 2, assesses: 1, spec_linked: false });

    const examCode = syntheticExamCode(templateId);
    expect(await childIds(examCode)).toEqual([`HAS_QUESTION ${ids.q1}`, `HAS_QUESTION ${ids.q2}`, `HAS_QUESTION ${ids.q3}`]);
    expect(await childIds(ids.q1)).toEqual([]); // no parts, no regions, no ASSESSES any more
    // Regions are ordered by page; the specification point has no order, so it comes last.
    expect(await childIds(ids.q2)).toEqual([`HAS_REGION ${ids.a2}`, "ASSESSES SPEC-X/3"]);
    expect(await childIds(ids.q3)).toEqual([`HAS_PART ${ids.q1a}`]);
    expect(await childIds(ids.q1a)).toEqual([`HAS_REGION ${ids.a3}`]);
    expect((await store().getNode(graphDb(), ids.q1a))?.properties.label).toBe("3a");
    for (const gone of [ids.q1b, ids.a1a, ids.a1b, ids.a2context]) expect(await store().getNode(graphDb(), gone), gone).toBeNull();
    // Specification points are not the paper's: they stay for other papers.
    expect(await store().getNode(graphDb(), "SPEC-X/2")).not.toBeNull();
  });

  it("gives the same graph when the owner syncs several times at once", async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => sync(templateId, school.teacher.token)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const examCode = syntheticExamCode(templateId);
    expect(await childIds(examCode)).toEqual([`HAS_QUESTION ${ids.q1}`, `HAS_QUESTION ${ids.q2}`, `HAS_QUESTION ${ids.q3}`]);
    expect(await childIds(ids.q3)).toEqual([`HAS_PART ${ids.q1a}`]);
    expect(await childIds(ids.q1a)).toEqual([`HAS_REGION ${ids.a3}`]);
  });

  it("keys the paper by the catalogue exam_code and links it to the paper's specification", async () => {
    const paperId = `PAPER-${uuid()}`;
    const examCode = `CODE-${uuid()}`;
    await asService(db(), (tx) =>
      tx.insert(examPapers).values({ id: paperId, exam_code: examCode, title: "Catalogue paper", specification: "SPEC-X" }),
    );
    const catalogueTemplate = await createTemplate(
      { questions: [{ id: uuid(), parent_id: null, label: "1", order: 1, spec_ref: "SPEC-X/1" }], areas: [] },
      { exam_id: paperId, exam_code: examCode },
    );
    const result = await createCaller({ db: db(), user: { id: school.teacher.id } }).graph.syncTemplate({ templateId: catalogueTemplate });
    expect(result).toEqual({ exam_code: examCode, questions: 1, parts: 0, regions: 0, assesses: 1, spec_linked: true });
    expect((await childIds(examCode, "Specification"))).toEqual(["HAS_SPECIFICATION SPEC-X"]);

    // A new exam_code moves the questions to the new paper: the old paper keeps none.
    const newCode = `CODE-${uuid()}`;
    await asUser(db(), school.teacher.id, (tx) =>
      tx.update(examTemplates).set({ exam_code: newCode }).where(eq(examTemplates.id, catalogueTemplate)),
    );
    await sync(catalogueTemplate, school.teacher.token);
    expect(await childIds(examCode, "Question")).toEqual([]);
    expect(await childIds(newCode, "Question")).toHaveLength(1);
  });

  it("answers 403 to a colleague or admin who can see the template but does not own it", async () => {
    for (const caller of [school.otherTeacher, school.admin, school.head]) {
      const response = await sync(templateId, caller.token);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ detail: expect.stringMatching(/owner/) });
    }
    await expect(
      createCaller({ db: db(), user: { id: school.otherTeacher.id } }).graph.syncTemplate({ templateId }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("answers 404 for a missing template, a malformed id, or a template the caller cannot see", async () => {
    for (const [id, caller] of [
      [uuid(), school.teacher],
      ["not-a-uuid", school.teacher],
      [templateId, otherSchool.teacher],
      [templateId, school.student],
    ] as const) {
      const response = await sync(id, caller.token);
      expect(response.status, `${id} as ${caller.email}`).toBe(404);
      expect(await response.json()).toEqual({ detail: "Template not found" });
    }
    await expect(
      createCaller({ db: db(), user: { id: otherSchool.teacher.id } }).graph.syncTemplate({ templateId }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers 401 without a token", async () => {
    const response = await sync(templateId, null);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
  });

  /** Queues the template's projection job, as a save does (the owner's transaction). */
  const queueProjection = (templateId: string, owner = school.teacher) =>
    asUser(db(), owner.id, (tx) => enqueueTemplateProjection(tx, templateId));

  it("runs a queued projection as a background job", async () => {
    await runDueJobs(db(), { kinds: [writePersonalNodesJob] }); // the fixtures' users' own graph nodes: not counted below
    const queuedTemplate = await createTemplate({
      questions: [{ id: uuid(), parent_id: null, label: "1", order: 1 }],
      areas: [],
    });
    await queueProjection(queuedTemplate);
    expect(await childIds(syntheticExamCode(queuedTemplate), "Question")).toBeFalsy(); // not projected yet
    expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
    expect(await childIds(syntheticExamCode(queuedTemplate), "Question")).toHaveLength(1);
  });

  it("a failed projection job is logged and kept for a retry, and the previous projection stays whole", async () => {
    const logged = vi.spyOn(logger, "warn").mockImplementation(() => {});
    // A template deleted since its save: nothing to project, the job is simply done.
    await asService(db(), (tx) => enqueueTemplateProjection(tx, uuid()));
    expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
    expect(logged).not.toHaveBeenCalled();

    // A projection that fails half-way: a node of another type already holds a new question's id.
    const blockedId = uuid();
    await store().write(graphDb(), (writer) => writer.upsertNodes([{ label: "Subject", key: blockedId }]));
    const before = await childIds(syntheticExamCode(templateId));
    await writeCanvas(templateId, { questions: [{ id: blockedId, parent_id: null, label: "9", order: 1 }], areas: [] });
    await queueProjection(templateId);
    expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0]![0])).toMatch(/graph\.project-template .* failed \(attempt 1 of 8\): Question .* has the id of a subject/);
    // All or nothing: the earlier projection is untouched.
    expect(await childIds(syntheticExamCode(templateId))).toEqual(before);
    expect((await store().getNode(graphDb(), blockedId))?.node_type).toBe("Subject");
    // The owner sees why, in words that say what to change, and when Markbook tries again.
    const reason = `Question ${blockedId} has the id of a subject in the school's curriculum graph: give it a new id`;
    const status = await createCaller({ db: db(), user: { id: school.teacher.id } }).exam.templates.graphStatus({ template_id: templateId });
    expect(status).toMatchObject({ state: "queued", problem: { reason, next_attempt_at: expect.any(String) } });
    expect(Date.parse(status.problem!.next_attempt_at!)).toBeGreaterThan(Date.now());

    // The synchronous graph-sync refuses it the same way: the client's id is the problem, not the server.
    const response = await sync(templateId, school.teacher.token);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ detail: reason });
  });
  describe("the owner sees the projection job: exam.templates.graphStatus and retryGraph", () => {
    const templatesAs = (person: { id: string }) => createCaller({ db: db(), user: { id: person.id } }).exam.templates;
    /** The projection kind with no wait between attempts: one runDueJobs call uses up all of them. */
    const impatientProjection = [{ ...projectTemplateJob, backoff: { baseMs: 0, maxMs: 0 } }];
    const projectionJobs = (templateId: string) =>
      asService(db(), (tx) => tx.select().from(backgroundJobs).where(eq(backgroundJobs.dedupe_key, templateId)));
    const clashMessage = (questionId: string) => `Question ${questionId} is part of another template's projection in the graph: give it a new id`;

    /** A template whose question id another template has projected already: its projection fails. */
    async function clashingTemplate() {
      const clashId = uuid();
      const first = await createTemplate({ questions: [{ id: clashId, parent_id: null, label: "1", order: 1 }], areas: [] });
      expect((await sync(first, school.teacher.token)).status).toBe(200);
      // The question leaves the first template's canvas, not (yet) its projection.
      await writeCanvas(first, { questions: [], areas: [] });
      const second = await createTemplate({ questions: [{ id: clashId, parent_id: null, label: "1", order: 1 }], areas: [] });
      return { templateId: second, clashId };
    }

    it("shows nothing while all is well, the reason once a save's projection has failed, and Retry now runs it again", async () => {
      const { templateId: id, clashId } = await clashingTemplate();
      const owner = templatesAs(school.teacher);
      expect(await owner.graphStatus({ template_id: id })).toEqual({ state: "none", problem: null });

      // A save queues the projection with it; its attempts fail, and the job is kept as failed.
      await owner.save({ template_id: id, body: { title: "Renamed paper" } });
      expect(await owner.graphStatus({ template_id: id })).toEqual({ state: "queued", problem: null });
      const logged = vi.spyOn(logger, "warn").mockImplementation(() => {});
      expect(await runDueJobs(db(), { kinds: impatientProjection })).toBe(8);
      expect(logged).toHaveBeenCalledTimes(8);
      expect(await owner.graphStatus({ template_id: id })).toEqual({
        state: "failed",
        problem: { reason: clashMessage(clashId), next_attempt_at: null },
      });

      // The teacher gives the question a new id and presses Retry now: a fresh job, which succeeds.
      const freshId = uuid();
      await writeCanvas(id, { questions: [{ id: freshId, parent_id: null, label: "1", order: 1 }], areas: [] });
      expect(await owner.retryGraph({ template_id: id })).toEqual({ state: "queued", problem: null });
      expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
      expect(await owner.graphStatus({ template_id: id })).toEqual({ state: "done", problem: null });
      expect(await childIds(syntheticExamCode(id), "Question")).toEqual([`HAS_QUESTION ${freshId}`]);
      expect((await projectionJobs(id)).map((job) => job.state).sort()).toEqual(["done", "failed"]);
    });

    it("Retry now brings a waiting retry forward to now", async () => {
      const { templateId: id } = await clashingTemplate();
      const owner = templatesAs(school.teacher);
      vi.spyOn(logger, "warn").mockImplementation(() => {});
      await owner.save({ template_id: id, body: { title: "Renamed paper" } });
      expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
      const waiting = await owner.graphStatus({ template_id: id });
      expect(waiting).toMatchObject({ state: "queued", problem: { next_attempt_at: expect.any(String) } });
      expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(0); // the next attempt is not due yet

      const retried = await owner.retryGraph({ template_id: id });
      expect(Date.parse(retried.problem!.next_attempt_at!)).toBeLessThan(Date.parse(waiting.problem!.next_attempt_at!));
      expect(await runDueJobs(db(), { kinds: allJobKinds })).toBe(1);
      expect(await projectionJobs(id)).toHaveLength(1);
      expect((await projectionJobs(id))[0]).toMatchObject({ state: "queued", attempts: 2 });
    });

    it("is the owner's only: colleagues, other schools and malformed ids get 404, and queue nothing", async () => {
      const id = await createTemplate({ questions: [], areas: [] });
      await templatesAs(school.teacher).save({ template_id: id, body: { title: "Renamed paper" } });
      for (const person of [school.otherTeacher, school.head, school.admin, school.student, otherSchool.teacher, otherSchool.admin]) {
        await expect(templatesAs(person).graphStatus({ template_id: id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Template not found" });
        await expect(templatesAs(person).retryGraph({ template_id: id })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Template not found" });
      }
      for (const hostile of ["not-a-uuid", "../../etc/passwd", `${id}' or '1'='1`, ""]) {
        await expect(templatesAs(school.teacher).graphStatus({ template_id: hostile })).rejects.toMatchObject({ code: "NOT_FOUND" });
        await expect(templatesAs(school.teacher).retryGraph({ template_id: hostile })).rejects.toMatchObject({ code: "NOT_FOUND" });
      }
      const jobs = await projectionJobs(id);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ state: "queued", owner_id: school.teacher.id });
      await runDueJobs(db(), { kinds: allJobKinds });
    });
  });

  describe("ownership: a re-sync replaces only what that template projected (issue 14)", () => {
    /** A catalogue paper with a specification; its exam_code is shared by the templates below. */
    async function cataloguePaper() {
      const paperId = `PAPER-${uuid()}`;
      const examCode = `SHARED-${uuid()}`;
      await asService(db(), (tx) =>
        tx.insert(examPapers).values({ id: paperId, exam_code: examCode, title: "Shared catalogue paper", specification: "SPEC-X" }),
      );
      return { paperId, examCode };
    }

    /** Question 1 with part 1a (one area), question 2 (one area): fresh ids. */
    function canvasOf(tag: string) {
      const q = { q1: uuid(), q1a: uuid(), q2: uuid(), a1a: uuid(), a2: uuid() };
      const canvas: Canvas = {
        questions: [
          { id: q.q1, parent_id: null, label: `${tag}1`, order: 1, is_container: true },
          { id: q.q1a, parent_id: q.q1, label: `${tag}1a`, order: 2, spec_ref: "SPEC-X/1" },
          { id: q.q2, parent_id: null, label: `${tag}2`, order: 3 },
        ],
        areas: [
          { id: q.a1a, question_id: q.q1a, page: 1 },
          { id: q.a2, question_id: q.q2, page: 2 },
        ],
      };
      return { ids: q, canvas };
    }

    /** The template's whole projection as it hangs from the paper: question → parts → regions. */
    async function expectProjected(examCode: string, ids: ReturnType<typeof canvasOf>["ids"], templateId: string, database = graphDb()) {
      const underPaper = await childIds(examCode, "Question", database);
      expect(underPaper).toEqual(expect.arrayContaining([`HAS_QUESTION ${ids.q1}`, `HAS_QUESTION ${ids.q2}`]));
      expect(await childIds(ids.q1, "Part", database)).toEqual([`HAS_PART ${ids.q1a}`]);
      expect(await childIds(ids.q1a, "Region", database)).toEqual([`HAS_REGION ${ids.a1a}`]);
      expect(await childIds(ids.q2, "Region", database)).toEqual([`HAS_REGION ${ids.a2}`]);
      for (const id of Object.values(ids)) expect((await store().getNode(database, id))?.properties.projected_by, id).toBe(templateId);
    }

    it("two templates of one school on one catalogue paper: each sync keeps the other's questions, parts and regions", async () => {
      const { paperId, examCode } = await cataloguePaper();
      const first = canvasOf("A");
      const second = canvasOf("B");
      const firstTemplate = await createTemplate(first.canvas, { exam_id: paperId, exam_code: examCode });
      const colleague = { teacher: school.otherTeacher, institute: school.institute };
      const secondTemplate = await createTemplate(second.canvas, { exam_id: paperId, exam_code: examCode }, colleague);

      expect((await sync(firstTemplate, school.teacher.token)).status).toBe(200);
      expect((await sync(secondTemplate, school.otherTeacher.token)).status).toBe(200);
      await expectProjected(examCode, first.ids, firstTemplate);
      await expectProjected(examCode, second.ids, secondTemplate);
      expect(await childIds(examCode, "Question")).toHaveLength(4);
      expect(await childIds(examCode, "Specification")).toEqual(["HAS_SPECIFICATION SPEC-X"]);
      // The shared paper carries what its exam_code says, not whichever template synced last.
      expect((await store().getNode(graphDb(), examCode))?.properties).toMatchObject({ exam_code: examCode, name: "Shared catalogue paper" });
      expect((await store().getNode(graphDb(), examCode))?.properties.template_id).toBeUndefined();

      // The first template deletes question 2 and re-syncs: only its own question 2 goes.
      await writeCanvas(firstTemplate, { questions: first.canvas.questions.slice(0, 2), areas: first.canvas.areas.slice(0, 1) });
      expect(await (await sync(firstTemplate, school.teacher.token)).json()).toMatchObject({ questions: 1, parts: 1, regions: 1 });
      for (const gone of [first.ids.q2, first.ids.a2]) expect(await store().getNode(graphDb(), gone), gone).toBeNull();
      await expectProjected(examCode, second.ids, secondTemplate);
      expect(await childIds(examCode, "Question")).toHaveLength(3);
      expect(await childIds(first.ids.q1, "Part")).toEqual([`HAS_PART ${first.ids.q1a}`]);

      // And the second one's re-sync (several at once) leaves the first's alone.
      const again = await Promise.all([1, 2, 3].map(() => sync(secondTemplate, school.otherTeacher.token)));
      expect(again.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(await childIds(first.ids.q1a, "Region")).toEqual([`HAS_REGION ${first.ids.a1a}`]);
      await expectProjected(examCode, second.ids, secondTemplate);
    });

    it("two schools on one catalogue paper: each school's projection stays whole", async () => {
      const { paperId, examCode } = await cataloguePaper();
      const mine = canvasOf("M");
      const theirs = canvasOf("T");
      const myTemplate = await createTemplate(mine.canvas, { exam_id: paperId, exam_code: examCode });
      const theirTemplate = await createTemplate(theirs.canvas, { exam_id: paperId, exam_code: examCode }, otherSchool);
      expect((await sync(myTemplate, school.teacher.token)).status).toBe(200);
      expect((await sync(theirTemplate, otherSchool.teacher.token)).status).toBe(200);
      await expectProjected(examCode, mine.ids, myTemplate);
      await expectProjected(examCode, theirs.ids, theirTemplate, otherSchool.institute.curriculum_db_name);
      expect(await childIds(examCode, "Question")).toHaveLength(2);
    });

    it("a template whose exam_code is another template's synthetic code cannot touch that template's projection", async () => {
      const victim = canvasOf("V");
      const victimTemplate = await createTemplate(victim.canvas);
      expect((await sync(victimTemplate, school.teacher.token)).status).toBe(200);

      // At the edge the reserved form is refused (REST and tRPC alike).
      const createRequest = (exam_code: string) =>
        createTemplateRoute(
          new Request("http://localhost/api/exam/templates", {
            method: "POST",
            headers: { authorization: `Bearer ${school.otherTeacher.token}`, "content-type": "application/json" },
            body: JSON.stringify({ title: "Copycat", exam_code }),
          }),
        );
      for (const code of [syntheticExamCode(victimTemplate), `Template-${victimTemplate}`, "template-anything"]) {
        const refused = await createRequest(code);
        expect(refused.status, code).toBe(400);
        expect((await refused.json()).detail).toMatch(/^Paper code: must not start with .template-./);
      }
      await expect(
        createCaller({ db: db(), user: { id: school.otherTeacher.id } }).exam.templates.create({ title: "Copycat", exam_code: syntheticExamCode(victimTemplate) }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
      expect((await createRequest("templates-are-fine")).status).toBe(201);

      // A row written before that rule: it projects under its own synthetic code, never into the victim's paper.
      const intruder = canvasOf("I");
      const colleague = { teacher: school.otherTeacher, institute: school.institute };
      const intruderTemplate = await createTemplate(intruder.canvas, { exam_code: syntheticExamCode(victimTemplate) }, colleague);
      const result = await (await sync(intruderTemplate, school.otherTeacher.token)).json();
      expect(result.exam_code).toBe(syntheticExamCode(intruderTemplate));
      await expectProjected(syntheticExamCode(victimTemplate), victim.ids, victimTemplate);
      expect(await childIds(syntheticExamCode(victimTemplate), "Question")).toHaveLength(2);
      expect((await store().getNode(graphDb(), syntheticExamCode(victimTemplate)))?.properties).toMatchObject({ template_id: victimTemplate });
    });

    it("reusing another template's question and area ids neither moves nor removes them (409)", async () => {
      const { paperId, examCode } = await cataloguePaper();
      const victim = canvasOf("V");
      const victimTemplate = await createTemplate(victim.canvas, { exam_id: paperId, exam_code: examCode });
      expect((await sync(victimTemplate, school.teacher.token)).status).toBe(200);
      // The victim's canvas loses question 2 in the database but its projection has not run yet, so
      // the graph still holds it; another template now uses that question id and the area ids.
      await writeCanvas(victimTemplate, { questions: victim.canvas.questions.slice(0, 2), areas: [] });
      const hostileCanvas: Canvas = {
        questions: [{ id: victim.ids.q2, parent_id: null, label: "H2", order: 1 }],
        areas: [{ id: victim.ids.a2, question_id: victim.ids.q2, page: 1 }],
      };
      const colleague = { teacher: school.otherTeacher, institute: school.institute };
      for (const fields of [{ exam_id: paperId, exam_code: examCode }, {}]) {
        const hostile = await createTemplate({ questions: [], areas: [] }, fields, colleague);
        await writeCanvas(hostile, hostileCanvas, school.otherTeacher);
        const response = await sync(hostile, school.otherTeacher.token);
        expect(response.status).toBe(409);
        expect((await response.json()).detail).toMatch(/another template/);
        await expect(
          createCaller({ db: db(), user: { id: school.otherTeacher.id } }).graph.syncTemplate({ templateId: hostile }),
        ).rejects.toMatchObject({ code: "CONFLICT" });
        await writeCanvas(hostile, { questions: [], areas: [] }, school.otherTeacher);
      }
      // An area given the id of the victim's question: another type of node, refused the same way.
      const crossed = await createTemplate({ questions: [], areas: [] }, {}, colleague);
      const questionId = uuid();
      await writeCanvas(
        crossed,
        { questions: [{ id: questionId, parent_id: null, label: "1", order: 1 }], areas: [{ id: victim.ids.q2, question_id: questionId, page: 1 }] },
        school.otherTeacher,
      );
      const response = await sync(crossed, school.otherTeacher.token);
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({
        detail: `Response area ${victim.ids.q2} has the id of a question in the school's curriculum graph: give it a new id`,
      });
      // Still the victim's, where it was, as it was.
      await expectProjected(examCode, victim.ids, victimTemplate);
      expect((await store().getNode(graphDb(), victim.ids.q2))?.properties.label).toBe("V2");
    });
  });
});

