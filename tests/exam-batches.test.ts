import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as archiveRoute } from "../app/api/exam/batches/[batch_id]/archive/route";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as resultsRoute } from "../app/api/exam/batches/[batch_id]/results/route";
import { GET as listRoute, POST as createRoute } from "../app/api/exam/batches/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { PUT as putTemplate, DELETE as deleteTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { enrollments } from "../server/db/schema";
import { and, eq } from "drizzle-orm";
import { csvField } from "../server/exam/results-csv";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("exam batches", (database) => {
  let school: School;
  let otherSchool: School;
  let template: { id: string };
  let canvas: ReturnType<typeof sampleCanvas>;
  let roster: Awaited<ReturnType<typeof createClassWithStudents>>;

  const createBatch = (token: string, body: unknown) => callRest(createRoute, { method: "POST", token, body });
  const batchGet = (route: typeof queueRoute, token: string, batchId: string) => callRest(route, { token, params: { batch_id: batchId } });
  const mark = (token: string, body: Record<string, unknown>, markId: string = crypto.randomUUID()) =>
    callRest(markRoute, { method: "PUT", token, body, params: { mark_id: markId } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Batches");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const response = await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 4 } });
    template = await response.json();
    canvas = sampleCanvas();
    expect((await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: template.id } })).status).toBe(200);
    roster = await createClassWithStudents(database().db, school, 3);
    // An enrollment that ended: that student is not on a new batch's roster.
    await asService(database().db, (tx) =>
      tx.update(enrollments).set({ active: false }).where(and(eq(enrollments.class_id, roster.class.id), eq(enrollments.student_id, roster.students[2]!.id))),
    );
  });

  describe("create", () => {
    it("creates an open batch of the caller in the template's institute, with one absent submission per active enrollee", async () => {
      const response = await createBatch(school.otherTeacher.token, { template_id: template.id, class_id: roster.class.id, title: "Year 10 mock" });
      expect(response.status).toBe(201);
      const batch = await response.json();
      expect(batch).toMatchObject({
        template_id: template.id,
        class_id: roster.class.id,
        institute_id: school.institute.id,
        teacher_id: school.otherTeacher.id,
        title: "Year 10 mock",
        status: "open",
        submission_count: 2,
      });
      const queue = await (await batchGet(queueRoute, school.otherTeacher.token, batch.id)).json();
      expect(queue.submissions.map((s: { student_name: string; status: string }) => [s.student_name, s.status])).toEqual([
        [roster.students[0]!.full_name, "absent"],
        [roster.students[1]!.full_name, "absent"],
      ]);
      expect(queue.progress).toEqual({ total: 2, absent: 2, complete: 0, in_progress: 0 });
    });

    it("creates a batch without a class with no submissions and the template's title", async () => {
      const response = await createBatch(school.teacher.token, { template_id: template.id });
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ title: "Mock", submission_count: 0, class_id: null });
    });

    it("answers 404 for a template or class outside the caller's scope, 400 without template_id", async () => {
      expect((await createBatch(otherSchool.teacher.token, { template_id: template.id })).status).toBe(404);
      expect((await createBatch(school.student.token, { template_id: template.id })).status).toBe(404);
      expect((await createBatch(school.teacher.token, { template_id: crypto.randomUUID() })).status).toBe(404);
      const foreignClass = await createClassWithStudents(database().db, otherSchool, 1);
      const refused = await createBatch(school.teacher.token, { template_id: template.id, class_id: foreignClass.class.id });
      expect(refused.status).toBe(404);
      expect((await refused.json()).detail).toMatch(/Class not found/);
      const missing = await createBatch(school.teacher.token, {});
      expect(missing.status).toBe(400);
      expect((await missing.json()).detail).toBe("Template: must be a template id");
    });

    it("refuses a batch of an archived template (409)", async () => {
      const created = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Old" } })).json();
      await callRest(deleteTemplate, { method: "DELETE", token: school.teacher.token, params: { template_id: created.id } });
      expect((await createBatch(school.teacher.token, { template_id: created.id })).status).toBe(409);
    });
  });

  describe("list and archive", () => {
    it("lists newest first, filters by template, hides archived unless asked; archive is owner-only and idempotent", async () => {
      const other = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Other" } })).json();
      const first = await (await createBatch(school.teacher.token, { template_id: other.id, title: "first" })).json();
      const second = await (await createBatch(school.teacher.token, { template_id: other.id, title: "second" })).json();
      const third = await (await createBatch(school.teacher.token, { template_id: other.id, title: "third" })).json();
      const titles = async (query: string, token = school.teacher.token) => {
        const response = await callRest(listRoute, { path: `/api/exam/batches${query}`, token });
        expect(response.status).toBe(200);
        return ((await response.json()).batches as { title: string }[]).map((b) => b.title);
      };
      expect(await titles(`?template_id=${other.id}`)).toEqual(["third", "second", "first"]);

      expect((await callRest(archiveRoute, { method: "POST", token: school.otherTeacher.token, params: { batch_id: second.id } })).status).toBe(403);
      expect((await callRest(archiveRoute, { method: "POST", token: otherSchool.teacher.token, params: { batch_id: second.id } })).status).toBe(404);
      for (let attempt = 0; attempt < 2; attempt++) {
        const archived = await callRest(archiveRoute, { method: "POST", token: school.teacher.token, params: { batch_id: second.id } });
        expect(archived.status).toBe(200);
        expect(await archived.json()).toMatchObject({ id: second.id, status: "archived" });
      }
      expect(await titles(`?template_id=${other.id}`)).toEqual(["third", "first"]);
      expect(await titles(`?template_id=${other.id}&include_archived=true`)).toEqual(["third", "second", "first"]);
      expect(await titles(`?template_id=${other.id}`, school.head.token)).toEqual(["third", "first"]);
      expect(await titles(`?template_id=${other.id}`, otherSchool.teacher.token)).toEqual([]);
      expect(await titles(`?template_id=${other.id}`, school.student.token)).toEqual([]);
      expect([first.id, third.id]).toHaveLength(2);
    });

    it("refuses marks on an archived batch with a clear 409", async () => {
      const batch = await (await createBatch(school.teacher.token, { template_id: template.id, class_id: roster.class.id })).json();
      const queue = await (await batchGet(queueRoute, school.teacher.token, batch.id)).json();
      await callRest(archiveRoute, { method: "POST", token: school.teacher.token, params: { batch_id: batch.id } });
      const refused = await mark(school.teacher.token, { submission_id: queue.submissions[0].id, question_id: canvas.ids.q2, awarded_marks: 1 });
      expect(refused.status).toBe(409);
      expect((await refused.json()).detail).toMatch(/archived/);
    });
  });

  describe("queue, results and CSV", () => {
    it("applies the total rule, includes absent students, and exports the exact CSV", async () => {
      const batch = await (await createBatch(school.teacher.token, { template_id: template.id, class_id: roster.class.id })).json();
      const queue = await (await batchGet(queueRoute, school.teacher.token, batch.id)).json();
      const [first, second] = queue.submissions as { id: string; script_number: number }[];
      // first: 1a = 2.5, 1b = null (recorded without a value), 2 = 4; second: nothing (absent).
      expect((await mark(school.teacher.token, { submission_id: first!.id, question_id: canvas.ids.q1a, awarded_marks: 2.5 })).status).toBe(200);
      expect((await mark(school.head.token, { submission_id: first!.id, question_id: canvas.ids.q1b, awarded_marks: null })).status).toBe(200);
      expect((await mark(school.teacher.token, { submission_id: first!.id, question_id: canvas.ids.q2, awarded_marks: 4 })).status).toBe(200);

      const resultsResponse = await batchGet(resultsRoute, school.otherTeacher.token, batch.id);
      expect(resultsResponse.status).toBe(200);
      const results = await resultsResponse.json();
      expect(results.batch.id).toBe(batch.id);
      expect(results.questions).toEqual([
        { id: canvas.ids.q1a, label: "1a", max_marks: 3, order: 1 },
        { id: canvas.ids.q1b, label: "1b", max_marks: 2, order: 2 },
        { id: canvas.ids.q2, label: "2", max_marks: 5, order: 3 },
      ]);
      expect(results.results).toEqual([
        {
          submission_id: first!.id,
          student_id: roster.students[0]!.id,
          student_name: roster.students[0]!.full_name,
          has_student: true,
          script_number: first!.script_number,
          status: "marking",
          absence_marked_at: null,
          marks: { [canvas.ids.q1a]: 2.5, [canvas.ids.q1b]: null, [canvas.ids.q2]: 4 },
          total: 6.5,
        },
        {
          submission_id: second!.id,
          student_id: roster.students[1]!.id,
          student_name: roster.students[1]!.full_name,
          has_student: true,
          script_number: second!.script_number,
          status: "absent",
          absence_marked_at: null,
          marks: { [canvas.ids.q1a]: null, [canvas.ids.q1b]: null, [canvas.ids.q2]: null },
          total: null,
        },
      ]);

      const queueAfter = await (await batchGet(queueRoute, school.teacher.token, batch.id)).json();
      expect(queueAfter.submissions.map((s: { mark_entry_count: number }) => s.mark_entry_count)).toEqual([3, 0]);
      expect(queueAfter.progress).toEqual({ total: 2, absent: 1, complete: 0, in_progress: 1 });

      const csv = await batchGet(csvRoute, school.teacher.token, batch.id);
      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="batch-${batch.id}.csv"; filename*=UTF-8''batch-${batch.id}.csv`);
      expect(await csv.text()).toBe(
        [
          "student_name,student_id,status,1a,1b,2,total",
          `${roster.students[0]!.full_name},${roster.students[0]!.id},Being marked (2 of 3),2.5,,4,6.5`,
          `${roster.students[1]!.full_name},${roster.students[1]!.id},No scan yet,,,,`,
          "",
        ].join("\r\n"),
      );
    });

    it("gives a non-absent submission without marks a total of 0", async () => {
      const batch = await (await createBatch(school.teacher.token, { template_id: template.id, class_id: roster.class.id })).json();
      const queue = await (await batchGet(queueRoute, school.teacher.token, batch.id)).json();
      const { examSubmissions } = await import("../server/db/schema");
      await asService(database().db, (tx) => tx.update(examSubmissions).set({ status: "matched" }).where(eq(examSubmissions.id, queue.submissions[0].id)));
      const results = await (await batchGet(resultsRoute, school.teacher.token, batch.id)).json();
      expect(results.results.map((r: { status: string; total: number | null }) => [r.status, r.total])).toEqual([["matched", 0], ["absent", null]]);
    });

    it("quotes per RFC 4180, keeps UTF-8 and neutralises formula cells", async () => {
      expect(csvField("Zoë Ångström")).toBe("Zoë Ångström");
      expect(csvField('Smith, "Jo"')).toBe('"Smith, ""Jo"""');
      expect(csvField("line\nbreak")).toBe('"line\nbreak"');
      for (const start of ["=", "+", "-", "@"]) expect(csvField(`${start}SUM(A1)`)).toBe(`'${start}SUM(A1)`);
      expect(csvField("=1,2")).toBe(`"'=1,2"`);
      const named = await asService(database().db, async (tx) => {
        const { createUser } = await import("../server/identity/users");
        const { enrollStudent } = await import("../server/classroom/enrollments");
        const pupil = await createUser(tx, { email: `f.${crypto.randomUUID()}@example.org`, fullName: '=HYPERLINK("x"), Zoë', instituteId: school.institute.id, role: "student" });
        await enrollStudent(tx, { classId: roster.class.id, studentId: pupil.id });
        return pupil;
      });
      const batch = await (await createBatch(school.teacher.token, { template_id: template.id, class_id: roster.class.id })).json();
      const text = await (await batchGet(csvRoute, school.teacher.token, batch.id)).text();
      expect(text).toContain(`"'=HYPERLINK(""x""), Zoë",${named.id},No scan yet,,,,\r\n`);
    });

    it("names the CSV after the batch's title and day with name=title (RFC 6266), the contract's name otherwise", async () => {
      const created = await createBatch(school.teacher.token, { template_id: template.id, title: 'Zoë\'s 10A: Maths/mock "B"' });
      const batch = await created.json();
      const day = new Date(batch.created_at);
      const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
      const titled = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id }, path: `/api/exam/batches/${batch.id}/csv?name=title` });
      expect(titled.status).toBe(200);
      expect(titled.headers.get("content-disposition")).toBe(
        `attachment; filename="Zoe's 10A Maths-mock B - ${date}.csv"; filename*=UTF-8''Zo%C3%AB%27s%2010A%20Maths-mock%20B%20-%20${date}.csv`,
      );
      const byId = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id }, path: `/api/exam/batches/${batch.id}/csv?name=id` });
      expect(byId.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="batch-${batch.id}\\.csv"`));
      const wrong = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id }, path: `/api/exam/batches/${batch.id}/csv?name=nope` });
      expect(wrong.status).toBe(400);
      expect((await wrong.json()).detail).toBe("Name: must be id or title");
    });

    it("answers 404 on queue, results and CSV outside the caller's scope; a colleague of the school may read", async () => {
      const batch = await (await createBatch(school.teacher.token, { template_id: template.id })).json();
      for (const route of [queueRoute, resultsRoute, csvRoute]) {
        expect((await batchGet(route, otherSchool.teacher.token, batch.id)).status).toBe(404);
        expect((await batchGet(route, school.student.token, batch.id)).status).toBe(404);
        expect((await batchGet(route, school.teacher.token, crypto.randomUUID())).status).toBe(404);
        expect((await batchGet(route, school.otherTeacher.token, batch.id)).status).toBe(200);
      }
    });
  });
});
