import crypto from "node:crypto";
import { encode } from "next-auth/jwt";
import { beforeAll, expect, it } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as listTemplatesRoute } from "../app/api/exam/templates/route";
import { sessionCookieName, sessionOptions } from "../server/auth/next-auth";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("exam tRPC router and session-cookie REST", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string } | null) => createCaller({ db: database().db, user: user ? { id: user.id } : null });

  beforeAll(async () => {
    school = await createSchool(database().db, "Trpc");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("runs the whole flow through the same domain functions: template, canvas, batch, mark, results", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Mock", page_count: 4 });
    const canvas = sampleCanvas();
    const saved = await teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
    expect(saved.questions).toHaveLength(4);
    expect((await teacher.exam.templates.get({ template_id: template.id })).status).toBe("ready");
    expect((await teacher.exam.templates.list()).templates.map((t) => t.id)).toContain(template.id);

    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    expect(batch.submission_count).toBe(2);
    const queue = await as(school.otherTeacher).exam.batches.queue({ batch_id: batch.id });
    const mark = await as(school.head).exam.marks.upsert({
      mark_id: crypto.randomUUID(),
      body: { submission_id: queue.submissions[0]!.id, question_id: canvas.ids.q2, awarded_marks: 4.5 },
    });
    expect(mark).toMatchObject({ batch_id: batch.id, awarded_marks: 4.5, marked_by: "teacher" });
    const results = await teacher.exam.batches.results({ batch_id: batch.id });
    expect(results.results.map((r) => r.total)).toEqual([4.5, null]);
    const edited = await teacher.exam.questions.editMarkScheme({ question_id: canvas.ids.q1a, body: { mark_scheme: { type: "points" } } });
    expect(edited.mark_scheme).toEqual({ type: "points" });
    await expect(teacher.exam.templates.save({ template_id: template.id, body: sampleCanvas() })).rejects.toMatchObject({ code: "CONFLICT" });
    expect((await teacher.exam.batches.archive({ batch_id: batch.id })).status).toBe("archived");
    expect((await teacher.exam.batches.list({ include_archived: true, template_id: template.id })).batches).toHaveLength(1);
    expect((await teacher.exam.templates.archive({ template_id: template.id })).status).toBe("archived");

    // Another school and a student see nothing; no caller at all is UNAUTHORIZED.
    for (const outsider of [as(otherSchool.teacher), as(school.student)]) {
      await expect(outsider.exam.templates.get({ template_id: template.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(outsider.exam.batches.results({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(outsider.exam.batches.queue({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await outsider.exam.batches.list({ include_archived: true })).batches.map((b) => b.id)).not.toContain(batch.id);
    }
    await expect(as(null).exam.templates.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(teacher.exam.templates.create({ title: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("accepts the next-auth session cookie on REST paths when there is no Authorization header", async () => {
    const cookie = `${sessionCookieName}=${await encode({ token: { sub: school.teacher.id }, secret: sessionOptions.secret! })}`;
    const ok = await listTemplatesRoute(new Request("http://localhost/api/exam/templates", { headers: { cookie } }));
    expect(ok.status).toBe(200);
    const forged = await listTemplatesRoute(new Request("http://localhost/api/exam/templates", { headers: { cookie: `${sessionCookieName}=forged` } }));
    expect(forged.status).toBe(401);
    // A bad bearer token is judged alone even with a valid cookie alongside.
    const both = await listTemplatesRoute(new Request("http://localhost/api/exam/templates", { headers: { cookie, authorization: "Bearer nope" } }));
    expect(both.status).toBe(401);
    const anonymous = await queueRoute(new Request("http://localhost/x"), { params: Promise.resolve({ batch_id: crypto.randomUUID() }) });
    expect(anonymous.status).toBe(401);
  });
});
