import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { PATCH as questionRoute } from "../app/api/exam/questions/[question_id]/route";
import { GET as templateRoute, PUT as saveTemplateRoute } from "../app/api/exam/templates/[template_id]/route";
import { GET as listTemplatesRoute, POST as createTemplateRoute } from "../app/api/exam/templates/route";
import { POST as addStudentRoute } from "../app/database/timetable/classes/[class_id]/students/route";
import { GET as childrenRoute } from "../app/graph/node/children/route";
import { POST as syncTokenRoute } from "../app/sync/token/route";
import { parseJson } from "../server/http/request-body";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * The bad input of issue 14 item 4, one request each: every one answered 500 before the edge rules of
 * lib/rules/input-rules.ts; each must be a 400 naming the field, with nothing written.
 */
describeOnEachDatabase("input refused at the edge", (database) => {
  let school: School;
  let templateId: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  let submissionId: string;
  let batchId: string;
  let classId: string;
  let studentId: string;

  const refusal = async (response: Response) => ({ status: response.status, detail: ((await response.json()) as { detail: string }).detail });
  const readTemplate = async () => (await callRest(templateRoute, { token: school.teacher.token, params: { template_id: templateId } })).json();

  beforeAll(async () => {
    school = await createSchool(database().db, "Edge");
    const roster = await createClassWithStudents(database().db, school, 1);
    classId = roster.class.id;
    studentId = roster.students[0]!.id;
    // No page count, and a question without max_marks: nothing but the column bounds limits page and marks.
    const template = await (await callRest(createTemplateRoute, { method: "POST", token: school.teacher.token, body: { title: "Edge" } })).json();
    templateId = template.id;
    canvas = sampleCanvas();
    canvas.questions[3]!.max_marks = null as never;
    const saved = await callRest(saveTemplateRoute, { method: "PUT", token: school.teacher.token, params: { template_id: templateId }, body: canvas });
    expect(saved.status).toBe(200);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: templateId, class_id: classId } })).json();
    batchId = batch.id;
    submissionId = (await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batchId } })).json()).submissions[0].id;
  });

  it("refuses integers beyond PostgreSQL integer in question order and area and boundary page, naming the field", async () => {
    const before = await readTemplate();
    const cases: [string, (body: ReturnType<typeof sampleCanvas>) => void][] = [
      ["Question 1, order", (body) => void (body.questions[0]!.order = 2 ** 31)],
      ["Response area 2, page", (body) => void (body.response_areas[1]!.page = 2 ** 31)],
      ["Boundary 1, page", (body) => void (body.boundaries[0]!.page = 2 ** 53)],
    ];
    for (const [field, spoil] of cases) {
      const body = structuredClone(canvas);
      spoil(body);
      const response = await callRest(saveTemplateRoute, { method: "PUT", token: school.teacher.token, params: { template_id: templateId }, body });
      expect(await refusal(response)).toEqual({ status: 400, detail: `${field}: must be at most 2147483647` });
    }
    expect(await readTemplate()).toEqual(before);
  });

  it("refuses NUL, other control characters and lone surrogates in text fields, body and query alike", async () => {
    const before = await readTemplate();
    const create = (body: unknown) => callRest(createTemplateRoute, { method: "POST", token: school.teacher.token, body });
    expect(await refusal(await create({ title: "Paper", subject: "Maths\u0000" }))).toEqual({ status: 400, detail: "Subject: must not contain NUL characters" });
    expect(await refusal(await create({ title: "Pa\u001bper" }))).toEqual({ status: 400, detail: "Title: must not contain control characters" });
    expect(await refusal(await create({ title: "Paper \ud800" }))).toEqual({
      status: 400,
      detail: "Title: must be valid Unicode text (it contains a lone surrogate)",
    });
    const relabel = structuredClone(canvas);
    relabel.questions[1]!.label = "1\u0000a";
    expect(await refusal(await callRest(saveTemplateRoute, { method: "PUT", token: school.teacher.token, params: { template_id: templateId }, body: relabel }))).toEqual({
      status: 400,
      detail: "Question 2, label: must not contain NUL characters",
    });
    const scheme = await callRest(questionRoute, {
      method: "PATCH",
      token: school.teacher.token,
      params: { question_id: canvas.ids.q2 },
      body: { mark_scheme: { type: "points", points: ["M1\u0000"] } },
    });
    expect(await refusal(scheme)).toEqual({ status: 400, detail: "Mark scheme, point 1: must not contain NUL characters" });
    expect(await readTemplate()).toEqual(before);

    const list = await listTemplatesRoute(
      new Request("http://localhost/api/exam/templates?subject=%00", { headers: { authorization: `Bearer ${school.teacher.token}` } }),
    );
    expect(await refusal(list)).toEqual({ status: 400, detail: "Subject: must not contain NUL characters" });
    const children = await childrenRoute(
      new Request(`http://localhost/graph/node/children?neo4j_node_id=%00&neo4j_db_name=${school.teacher.user_db_name}`, {
        headers: { authorization: `Bearer ${school.teacher.token}` },
      }),
    );
    expect(await refusal(children)).toEqual({ status: 400, detail: "Graph node: must not contain NUL characters" });
  });

  it("refuses marks too large for numeric(8, 2) when the question has no max_marks, and NUL inside the stored detail", async () => {
    const mark = (body: Record<string, unknown>) =>
      callRest(markRoute, { method: "PUT", token: school.teacher.token, params: { mark_id: crypto.randomUUID() }, body });
    const valid = { submission_id: submissionId, question_id: canvas.ids.q2, awarded_marks: 3 };
    expect(await refusal(await mark({ ...valid, awarded_marks: 1_000_000 }))).toEqual({ status: 400, detail: "Mark: must be at most 999999.99" });
    expect(await refusal(await mark({ ...valid, awarded_marks: 2 ** 53 }))).toEqual({ status: 400, detail: "Mark: must be at most 999999.99" });
    expect(await refusal(await mark({ ...valid, mark_scheme_detail: { note: "a\u0000b" } }))).toEqual({
      status: 400,
      detail: "Mark scheme detail, note: must not contain NUL characters",
    });
    expect(await refusal(await mark({ ...valid, comment: "\u0000" }))).toEqual({ status: 400, detail: "Comment: must not contain NUL characters" });
    // Nothing was written: the submission has no mark, and the largest value the column holds is taken.
    const teacher = createCaller({ db: database().db, user: { id: school.teacher.id } });
    expect((await teacher.exam.batches.results({ batch_id: batchId })).results[0]!.total).toBeNull();
    expect((await mark({ ...valid, awarded_marks: 999_999.99 })).status).toBe(200);
  });

  it("applies the same rules to tRPC, which shares the schemas", async () => {
    const teacher = createCaller({ db: database().db, user: { id: school.teacher.id } });
    await expect(teacher.exam.templates.create({ title: "T", subject: "\u0000" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Subject: must not contain NUL characters",
    });
    const body = structuredClone(canvas);
    body.questions[2]!.order = 2 ** 31;
    await expect(teacher.exam.templates.save({ template_id: templateId, body })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Question 3, order: must be at most 2147483647",
    });
  });

  it("refuses JSON bodies no client means on every JSON route: wrong type, wrong content type, duplicate or prototype keys, deep nesting", async () => {
    const post = (handler: typeof createTemplateRoute, body: string, contentType = "application/json") =>
      handler(new Request("http://localhost/", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": contentType }, body }));
    const bodies: [string, RegExp][] = [
      ["null", /^The request must be a JSON object$/],
      ["[]", /^The request must be a JSON object$/],
      ['"text"', /^The request must be a JSON object$/],
      ["{", /not valid JSON/],
      ['{"title": "A", "title": "B"}', /"title" appears twice/],
      ['{"title": "A", "__proto__": {"x": 1}}', /must not contain the key "__proto__"/],
      ['{"title": "A", "nested": {"constructor": {"prototype": 1}}}', /must not contain the key "constructor"/],
      [`{"title": "A", "deep": ${"[".repeat(100)}${"]".repeat(100)}}`, /nests deeper than 64 levels/],
    ];
    for (const [body, message] of bodies) {
      const response = await post(createTemplateRoute, body);
      expect(response.status, body).toBe(400);
      expect((await response.json()).detail, body).toMatch(message);
    }
    const wrongType = await post(createTemplateRoute, '{"title": "A"}', "text/plain");
    expect(await refusal(wrongType)).toEqual({ status: 400, detail: 'The body must be JSON sent with Content-Type: application/json (not "text/plain")' });
    const utf16 = await post(createTemplateRoute, '{"title": "A"}', "application/json; charset=utf-16");
    expect(utf16.status).toBe(400);
    // The classroom and canvas routes read bodies the same way.
    const addStudent = await addStudentRoute(
      new Request("http://localhost/", {
        method: "POST",
        headers: { authorization: `Bearer ${school.admin.token}`, "content-type": "application/json" },
        body: `{"student_id": "${studentId}", "student_id": "${studentId}"}`,
      }),
      { params: Promise.resolve({ class_id: classId }) },
    );
    expect(await refusal(addStudent)).toEqual({ status: 400, detail: 'The key "student_id" appears twice in one object of the body' });
    const token = await post(syncTokenRoute, '{"__proto__": {}}');
    expect(await refusal(token)).toEqual({ status: 400, detail: 'The body must not contain the key "__proto__"' });
  });
});

describe("the JSON structure rules", () => {
  it("reads escaped keys as JSON does, and allows the same key in different objects", () => {
    expect(() => parseJson('{"\\u005f_proto__": 1}')).toThrow(/__proto__/);
    expect(() => parseJson('{"a": "}", "a": 1}')).toThrow(/"a" appears twice/);
    expect(parseJson('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}], "c": "\\"{,"}')).toEqual({ a: { a: 1 }, b: [{ a: 2 }, { a: 3 }], c: '"{,' });
  });
});
