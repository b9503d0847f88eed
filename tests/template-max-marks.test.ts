import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { PATCH as patchQuestion } from "../app/api/exam/questions/[question_id]/route";
import { GET as getTemplate, PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { maxMarksProblem, parseMaxMarks } from "../lib/rules/max-marks";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileNumber } from "./support/hostile-input";

describe("maximum marks as typed in the editor's field", () => {
  it("takes plain numbers within 0.5–500 with up to two decimals, and empty as none", () => {
    expect(parseMaxMarks("2")).toEqual({ value: 2 });
    expect(parseMaxMarks(" 1.5 ")).toEqual({ value: 1.5 });
    expect(parseMaxMarks("0.5")).toEqual({ value: 0.5 });
    expect(parseMaxMarks("500")).toEqual({ value: 500 });
    expect(parseMaxMarks("")).toEqual({ value: null });
  });

  it("refuses exponent notation, signs, zero, too many marks and too many decimals, with the rule", () => {
    for (const typed of ["1e3", "-2", "0", "99999", "1.255", "+3", "0x10", "1,5", "Infinity", "."]) {
      const parsed = parseMaxMarks(typed);
      expect(parsed, typed).toHaveProperty("error");
      expect((parsed as { error: string }).error, typed).toMatch(/^Maximum marks must (be between 0\.5 and 500|have at most two decimals|be a number such as 2 or 1\.5)\.$/);
    }
  });

  it("has one rule for numbers: finite, 0.5 to 500, at most two decimals", () => {
    expect(maxMarksProblem(1.1 + 2.2)).toMatch(/two decimals/);
    expect(maxMarksProblem(2.29)).toBeNull();
    expect(maxMarksProblem(500.01)).toMatch(/between/);
    expect(maxMarksProblem(Number.NaN)).toMatch(/between/);
  });
});

describeOnEachDatabase("maximum marks on the server", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  const put = (token: string, id: string, body: unknown) =>
    callRest(putTemplate, { method: "PUT", path: `/api/exam/templates/${id}`, token, body, params: { template_id: id } });
  const get = async (token: string, id: string) =>
    (await callRest(getTemplate, { path: `/api/exam/templates/${id}`, token, params: { template_id: id } })).json();
  const patch = (token: string, id: string, body: unknown) =>
    callRest(patchQuestion, { method: "PATCH", path: `/api/exam/questions/${id}`, token, body, params: { question_id: id } });

  async function templateWithCanvas() {
    const created = await callRest(postTemplate, { method: "POST", path: "/api/exam/templates", token: school.teacher.token, body: { title: "Marks", page_count: 4 } });
    const template = await created.json();
    const canvas = sampleCanvas();
    expect((await put(school.teacher.token, template.id, canvas)).status).toBe(200);
    return { id: template.id as string, canvas };
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "MaxMarks");
    otherSchool = await createSchool(database().db, "MaxMarksElsewhere");
  });

  const refused: [string, number][] = [
    ["too many", 99999],
    ["1e3 (1000)", 1e3],
    ["zero", 0],
    ["negative", -2],
    ["three decimals", 1.255],
  ];
  for (const [what, value] of refused) {
    it(`PUT answers 400 naming the question for ${what}, and keeps the saved maximum`, async () => {
      const { id, canvas } = await templateWithCanvas();
      const bad = sampleCanvas();
      bad.questions[3]!.max_marks = value;
      const response = await put(school.teacher.token, id, bad);
      expect(response.status).toBe(400);
      expect((await response.json()).detail).toMatch(/^Question 2: maximum marks must (be between 0\.5 and 500|have at most two decimals)$/);
      const kept = await get(school.teacher.token, id);
      expect(kept.questions.map((q: { id: string }) => q.id)).toEqual(canvas.questions.map((q) => q.id));
      expect(kept.questions[3].max_marks).toBe(5);
    });
  }

  it("accepts the edges of the rule and a part without a maximum yet", async () => {
    const { id } = await templateWithCanvas();
    const edges = sampleCanvas();
    edges.questions[1]!.max_marks = 0.5;
    edges.questions[2]!.max_marks = null as never;
    edges.questions[0]!.max_marks = 0.5;
    edges.questions[3]!.max_marks = 500;
    const response = await put(school.teacher.token, id, edges);
    expect(response.status).toBe(200);
    expect((await response.json()).questions.map((q: { max_marks: number | null }) => q.max_marks)).toEqual([0.5, 0.5, null, 500]);
  });

  it("takes a question with parts at the total of its parts or none, and refuses any other total", async () => {
    const { id } = await templateWithCanvas();
    const none = sampleCanvas();
    none.questions[0]!.max_marks = null as never;
    expect((await put(school.teacher.token, id, none)).status).toBe(200);
    const wrong = sampleCanvas();
    wrong.questions[0]!.max_marks = 7;
    const response = await put(school.teacher.token, id, wrong);
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toBe("Question 1: maximum marks of a question with parts must be the total of its parts (5), or none");
  });

  it("refuses the same through tRPC, as BAD_REQUEST with the same message", async () => {
    const { id } = await templateWithCanvas();
    const bad = sampleCanvas();
    bad.questions[1]!.max_marks = 0;
    await expect(as(school.teacher).exam.templates.save({ template_id: id, body: bad })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Question 1a: maximum marks must be between 0.5 and 500",
    });
  });

  it("PATCH of one question follows the rule, keeps a container's stored total right, and is 404 for another school", async () => {
    const { id, canvas } = await templateWithCanvas();
    const tooMany = await patch(school.teacher.token, canvas.ids.q1a, { max_marks: 600 });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).detail).toBe("Question 1a: maximum marks must be between 0.5 and 500");
    const wrongTotal = await patch(school.teacher.token, canvas.ids.q1, { max_marks: 9 });
    expect(wrongTotal.status).toBe(400);
    expect((await wrongTotal.json()).detail).toMatch(/^Question 1: .*total of its parts \(5\)/);

    expect((await patch(school.teacher.token, canvas.ids.q1a, { max_marks: 4.5 })).status).toBe(200);
    const after = await get(school.teacher.token, id);
    expect(after.questions.map((q: { max_marks: number | null }) => q.max_marks)).toEqual([6.5, 4.5, 2, 5]);
    expect((await patch(otherSchool.teacher.token, canvas.ids.q1a, { max_marks: 3 })).status).toBe(404);
  });

  it("answers every generated number with 400 naming the question or stores it exactly (fast-check)", async () => {
    const { id } = await templateWithCanvas();
    const { seed, cases } = fuzzSettings(40);
    await fc.assert(
      fc.asyncProperty(hostileNumber, async (value) => {
        const canvas = sampleCanvas();
        canvas.questions[3]!.max_marks = value;
        const response = await put(school.teacher.token, id, canvas);
        const reply = await response.json();
        if (maxMarksProblem(value) === null) {
          expect(response.status).toBe(200);
          expect(reply.questions[3].max_marks).toBe(value);
        } else {
          expect(response.status).toBe(400);
          expect(reply.detail).toMatch(/^Question 2: maximum marks must /);
        }
      }),
      { seed, numRuns: cases },
    );
  });
});
