import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { PATCH as patchQuestion } from "../app/api/exam/questions/[question_id]/route";
import { DELETE as deleteTemplate, GET as getTemplate, PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { GET as listTemplates, POST as postTemplate } from "../app/api/exam/templates/route";
import { signUserToken } from "../server/auth/tokens";
import { asService } from "../server/db/rls";
import { examBatches, examMarkEntries, examSubmissions, examTemplates, instituteMemberships } from "../server/db/schema";
import { graphStore } from "../server/graph/index";
import { syntheticExamCode } from "../server/graph/projection";
import { allJobKinds } from "../server/composition/job-kinds";
import { runDueJobs } from "../server/jobs/run";
import { createUser } from "../server/identity/users";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createCataloguePaper, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("exam templates", (database) => {
  let school: School;
  let otherSchool: School;
  let paper: Awaited<ReturnType<typeof createCataloguePaper>>;

  const create = (token: string, body: unknown) => callRest(postTemplate, { method: "POST", path: "/api/exam/templates", token, body });
  const get = (token: string, id: string) => callRest(getTemplate, { path: `/api/exam/templates/${id}`, token, params: { template_id: id } });
  const put = (token: string, id: string, body: unknown) =>
    callRest(putTemplate, { method: "PUT", path: `/api/exam/templates/${id}`, token, body, params: { template_id: id } });
  const list = (token: string, query = "") => callRest(listTemplates, { path: `/api/exam/templates${query}`, token });

  async function newTemplate(token = school.teacher.token, body: Record<string, unknown> = {}) {
    const response = await create(token, { title: "Mock paper", subject: "Mathematics", page_count: 4, ...body });
    expect(response.status).toBe(201);
    return response.json();
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Templates");
    otherSchool = await createSchool(database().db, "Elsewhere");
    paper = await createCataloguePaper(database().db);
  });

  describe("create: the institute rule", () => {
    it("uses the sole membership when institute_id is omitted, and makes the caller the owner", async () => {
      const template = await newTemplate();
      expect(template).toMatchObject({ institute_id: school.institute.id, owner_id: school.teacher.id, status: "draft", title: "Mock paper", page_count: 4 });
    });

    it("accepts an institute the caller belongs to, and refuses one they do not (403)", async () => {
      expect((await create(school.teacher.token, { title: "T", institute_id: school.institute.id })).status).toBe(201);
      const refused = await create(school.teacher.token, { title: "T", institute_id: otherSchool.institute.id });
      expect(refused.status).toBe(403);
      expect((await refused.json()).detail).toMatch(/not a member/);
    });

    it("requires institute_id from a member of several institutes (400), and accepts it given", async () => {
      const both = await asService(database().db, async (tx) => {
        const user = await createUser(tx, { email: `both.${crypto.randomUUID()}@example.org`, fullName: "Two Schools", instituteId: school.institute.id, role: "teacher" });
        await tx.insert(instituteMemberships).values({ institute_id: otherSchool.institute.id, user_id: user.id, role: "teacher" });
        return user;
      });
      const token = await signUserToken({ userId: both.id, ttlSeconds: 600 });
      const refused = await create(token, { title: "T" });
      expect(refused.status).toBe(400);
      expect((await refused.json()).detail).toBe("Institute: required, as you belong to several schools");
      const accepted = await create(token, { title: "T", institute_id: otherSchool.institute.id });
      expect(accepted.status).toBe(201);
      expect((await accepted.json()).institute_id).toBe(otherSchool.institute.id);
    });

    it("refuses a caller without any membership (403) and a student (403)", async () => {
      const loner = await asService(database().db, (tx) => createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone" }));
      const refused = await create(await signUserToken({ userId: loner.id, ttlSeconds: 600 }), { title: "T" });
      expect(refused.status).toBe(403);
      expect((await refused.json()).detail).toMatch(/no institute membership/);
      expect((await create(school.student.token, { title: "T" })).status).toBe(403);
    });

    it("resolves exam_code from the catalogue when only exam_id is given, keeps a given one, and refuses an unknown paper", async () => {
      expect(await newTemplate(school.teacher.token, { exam_id: paper.id })).toMatchObject({ exam_id: paper.id, exam_code: paper.exam_code });
      expect(await newTemplate(school.teacher.token, { exam_id: paper.id, exam_code: "MINE" })).toMatchObject({ exam_code: "MINE" });
      const unknown = await create(school.teacher.token, { title: "T", exam_id: "no-such-paper" });
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).detail).toMatch(/^Catalogue paper: there is no catalogue paper no-such-paper/);
    });

    it("answers 400 naming the field for a missing title, and 401 without a token", async () => {
      const missing = await create(school.teacher.token, { subject: "x" });
      expect(missing.status).toBe(400);
      expect((await missing.json()).detail).toBe("Title: required");
      expect((await callRest(postTemplate, { method: "POST", body: { title: "T" } })).status).toBe(401);
    });
  });

  describe("list", () => {
    it("filters by status, subject and exam_code, hides archived ones unless asked, and never shows another school's", async () => {
      const tag = crypto.randomBytes(3).toString("hex");
      const draft = await newTemplate(school.teacher.token, { subject: `Physics ${tag}` });
      const ready = await newTemplate(school.teacher.token, { subject: `Physics ${tag}`, exam_code: `CODE-${tag}` });
      expect((await put(school.teacher.token, ready.id, { status: "ready" })).status).toBe(200);
      const archived = await newTemplate(school.teacher.token, { subject: `Physics ${tag}` });
      expect((await callRest(deleteTemplate, { method: "DELETE", token: school.teacher.token, params: { template_id: archived.id } })).status).toBe(200);
      const foreign = await newTemplate(otherSchool.teacher.token, { subject: `Physics ${tag}` });

      const ids = async (query: string, token = school.teacher.token) => {
        const response = await list(token, query);
        expect(response.status).toBe(200);
        return ((await response.json()).templates as { id: string }[]).map((t) => t.id).sort();
      };
      const subject = `subject=${encodeURIComponent(`Physics ${tag}`)}`;
      expect(await ids(`?${subject}`)).toEqual([draft.id, ready.id].sort());
      expect(await ids(`?${subject}&include_archived=true`)).toEqual([draft.id, ready.id, archived.id].sort());
      expect(await ids(`?${subject}&status=ready`)).toEqual([ready.id]);
      expect(await ids(`?${subject}&status=archived`)).toEqual([archived.id]);
      expect(await ids(`?exam_code=CODE-${tag}`)).toEqual([ready.id]);
      // A colleague in the same school sees them too; another school sees only its own.
      expect(await ids(`?${subject}`, school.otherTeacher.token)).toEqual([draft.id, ready.id].sort());
      expect(await ids(`?${subject}`, otherSchool.teacher.token)).toEqual([foreign.id]);
      expect(await ids(`?${subject}`, school.student.token)).toEqual([]);
      expect((await list(school.teacher.token, "?include_archived=maybe")).status).toBe(400);
    });
  });

  describe("canvas: get and full-replace save", () => {
    it("round-trips the canvas with client UUIDs, snake_case fields and page-relative rectangles", async () => {
      const template = await newTemplate();
      const canvas = sampleCanvas();
      const saved = await put(school.teacher.token, template.id, { title: "Renamed", ...canvas, ids: undefined });
      expect(saved.status).toBe(200);
      const response = await get(school.otherTeacher.token, template.id);
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.title).toBe("Renamed");
      expect(body.questions.map((q: { id: string }) => q.id)).toEqual([canvas.ids.q1, canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2]);
      expect(body.questions[1]).toEqual({ ...canvas.questions[1], template_id: template.id });
      expect(body.response_areas).toHaveLength(3);
      expect(body.response_areas[0]).toEqual({ ...canvas.response_areas[0], template_id: template.id, tick_boxes: null });
      expect(body.boundaries.map((b: { id: string }) => b.id).sort()).toEqual(canvas.boundaries.map((b) => b.id).sort());

      // A second save replaces everything: what is not sent is gone.
      const second = await put(school.teacher.token, template.id, {
        questions: [canvas.questions[3]],
        response_areas: [canvas.response_areas[2]],
        boundaries: [],
        status: "ready",
      });
      expect(second.status).toBe(200);
      const after = await second.json();
      expect(after.status).toBe("ready");
      expect(after.questions.map((q: { id: string }) => q.id)).toEqual([canvas.ids.q2]);
      expect(after.response_areas).toHaveLength(1);
      expect(after.boundaries).toEqual([]);
    });

    it("projects the saved canvas into the graph by the job queued with the save", async () => {
      const template = await newTemplate();
      const canvas = sampleCanvas();
      expect((await put(school.teacher.token, template.id, { ...canvas, ids: undefined })).status).toBe(200);
      await runDueJobs(database().db, { kinds: allJobKinds });
      const paperNode = syntheticExamCode(template.id);
      const children = await graphStore(database().db).listChildren(school.institute.curriculum_db_name, paperNode, { nodeType: "Question" });
      expect(children?.map((child) => child.id).sort()).toEqual([canvas.ids.q1, canvas.ids.q2].sort());
    });

    const badCanvases: [string, (c: ReturnType<typeof sampleCanvas>) => void, RegExp][] = [
      ["a parent that does not exist", (c) => (c.questions[1]!.parent_id = crypto.randomUUID()), /questions\[1\]\.parent_id.*not a question/],
      ["a parent that is not a container", (c) => (c.questions[2]!.parent_id = c.ids.q2), /questions\[2\]\.parent_id.*not a container/],
      ["a cycle", (c) => { c.questions[0]!.parent_id = c.ids.q1a; c.questions[1]!.is_container = true; }, /cycle/],
      ["an area of a question not in the template", (c) => (c.response_areas[0]!.question_id = crypto.randomUUID()), /response_areas\[0\]\.question_id/],
      ["a page beyond page_count", (c) => (c.response_areas[1]!.page = 5), /response_areas\[1\]\.page.*beyond/],
      ["a rectangle leaving the page", (c) => (c.response_areas[0]!.x = 0.8), /response_areas\[0\].*inside the page/],
      ["a coordinate outside 0–1", (c) => (c.response_areas[0]!.y = 1.5), /^Response area 1, y: must be at most 1$/],
      ["a boundary upside down", (c) => (c.boundaries[0]!.top = 0.95), /boundaries\[0\]/],
      ["a duplicate id", (c) => (c.response_areas[1]!.id = c.response_areas[0]!.id), /used twice/],
      ["a mark scheme without type", (c) => ((c.questions[1] as { mark_scheme: unknown }).mark_scheme = { points: [] }), /^Question 2, mark scheme, type: required$/],
    ];
    for (const [what, spoil, message] of badCanvases) {
      it(`answers 400 naming the fault for ${what}, and keeps the old canvas`, async () => {
        const template = await newTemplate();
        const good = sampleCanvas();
        expect((await put(school.teacher.token, template.id, good)).status).toBe(200);
        const bad = sampleCanvas();
        spoil(bad);
        const response = await put(school.teacher.token, template.id, bad);
        expect(response.status).toBe(400);
        expect((await response.json()).detail).toMatch(message);
        const kept = await (await get(school.teacher.token, template.id)).json();
        expect(kept.questions.map((q: { id: string }) => q.id)).toEqual(good.questions.map((q) => q.id));
      });
    }

    it("rolls back a save that fails half-way (a row that collides after the old canvas was deleted)", async () => {
      const victim = await newTemplate();
      const original = sampleCanvas();
      expect((await put(school.teacher.token, victim.id, original)).status).toBe(200);
      // Another template already owns this question id: the insert fails after the deletes ran.
      const other = await newTemplate();
      const taken = sampleCanvas();
      expect((await put(school.teacher.token, other.id, taken)).status).toBe(200);
      const colliding = sampleCanvas();
      colliding.questions[3]!.id = taken.ids.q2;
      colliding.response_areas[2]!.question_id = taken.ids.q2;
      colliding.boundaries[1]!.question_id = taken.ids.q2;
      const response = await put(school.teacher.token, victim.id, { ...colliding, title: "Should not stick" });
      expect(response.status).toBe(400);
      expect((await response.json()).detail).toMatch(/already used by another template/);
      const kept = await (await get(school.teacher.token, victim.id)).json();
      expect(kept.title).toBe("Mock paper");
      expect(kept.questions.map((q: { id: string }) => q.id)).toEqual(original.questions.map((q) => q.id));
      expect(kept.response_areas.map((a: { id: string }) => a.id).sort()).toEqual(original.response_areas.map((a) => a.id).sort());
    });

    it("requires the three canvas arrays together, and saves template fields alone without them", async () => {
      const template = await newTemplate();
      const partial = await put(school.teacher.token, template.id, { questions: [] });
      expect(partial.status).toBe(400);
      expect((await partial.json()).detail).toMatch(/together/);
      const meta = await put(school.teacher.token, template.id, { title: "Only the title", page_count: 2 });
      expect(meta.status).toBe(200);
      expect(await meta.json()).toMatchObject({ title: "Only the title", page_count: 2 });
    });

    it("lets only the owner save (403 for a colleague), 404 for another school, a student and an unknown id", async () => {
      const template = await newTemplate();
      expect((await put(school.otherTeacher.token, template.id, { title: "x" })).status).toBe(403);
      for (const token of [otherSchool.teacher.token, school.student.token]) {
        expect((await put(token, template.id, { title: "x" })).status).toBe(404);
        expect((await get(token, template.id)).status).toBe(404);
        expect((await callRest(deleteTemplate, { method: "DELETE", token, params: { template_id: template.id } })).status).toBe(404);
      }
      expect((await get(school.teacher.token, crypto.randomUUID())).status).toBe(404);
      expect((await get(school.teacher.token, "not-a-uuid")).status).toBe(404);
    });

    it("answers 409 once any batch of the template has a mark, leaving the canvas as it was", async () => {
      const template = await newTemplate();
      const canvas = sampleCanvas();
      expect((await put(school.teacher.token, template.id, canvas)).status).toBe(200);
      await asService(database().db, async (tx) => {
        const [batch] = await tx
          .insert(examBatches)
          .values({ template_id: template.id, institute_id: school.institute.id, teacher_id: school.otherTeacher.id, title: "B" })
          .returning();
        const [submission] = await tx.insert(examSubmissions).values({ batch_id: batch!.id, status: "marking" }).returning();
        await tx.insert(examMarkEntries).values({ submission_id: submission!.id, question_id: canvas.ids.q2, batch_id: batch!.id, awarded_marks: "3" });
      });
      const refused = await put(school.teacher.token, template.id, sampleCanvas());
      expect(refused.status).toBe(409);
      expect((await refused.json()).detail).toMatch(/Marks are already recorded/);
      const kept = await (await get(school.teacher.token, template.id)).json();
      expect(kept.questions.map((q: { id: string }) => q.id)).toEqual(canvas.questions.map((q) => q.id));
      // Template-level fields alone delete nothing, so they still save.
      expect((await put(school.teacher.token, template.id, { status: "ready" })).status).toBe(200);

      // The mark-scheme PATCH is not blocked by the guard, but cannot drop max_marks below a mark given.
      const patch = (body: unknown, token = school.teacher.token, id = canvas.ids.q2) =>
        callRest(patchQuestion, { method: "PATCH", token, body, params: { question_id: id } });
      const edited = await patch({ mark_scheme: { type: "points", points: ["B1"] }, max_marks: 4 });
      expect(edited.status).toBe(200);
      expect(await edited.json()).toMatchObject({ id: canvas.ids.q2, max_marks: 4, mark_scheme: { type: "points", points: ["B1"] }, label: "2" });
      expect((await patch({ max_marks: 2 })).status).toBe(409);
      expect((await patch({ max_marks: -1 })).status).toBe(400);
      expect((await patch({ spec_ref: "x" }, school.otherTeacher.token)).status).toBe(403);
      expect((await patch({ spec_ref: "x" }, otherSchool.teacher.token)).status).toBe(404);
      expect((await patch({ spec_ref: "x" }, school.student.token)).status).toBe(404);
      expect((await patch({ spec_ref: "x" }, school.teacher.token, crypto.randomUUID())).status).toBe(404);
    });
  });

  describe("soft delete", () => {
    it("archives the template and keeps the row; only the owner may", async () => {
      const template = await newTemplate();
      expect((await callRest(deleteTemplate, { method: "DELETE", token: school.otherTeacher.token, params: { template_id: template.id } })).status).toBe(403);
      const response = await callRest(deleteTemplate, { method: "DELETE", token: school.teacher.token, params: { template_id: template.id } });
      expect(response.status).toBe(200);
      expect((await response.json()).status).toBe("archived");
      const [row] = await asService(database().db, (tx) => tx.select().from(examTemplates).where(eq(examTemplates.id, template.id)));
      expect(row?.status).toBe("archived");
      expect((await get(school.teacher.token, template.id)).status).toBe(200);
    });
  });
});
