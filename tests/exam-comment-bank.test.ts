import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { GET as listCommentsRoute, POST as saveCommentRoute } from "../app/api/exam/questions/[question_id]/comments/route";
import { DELETE as removeCommentRoute } from "../app/api/exam/saved-comments/[comment_id]/route";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";

describeOnEachDatabase("the comment bank of a question", (database) => {
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let templateId: string;
  let submissions: string[];
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Comments");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Comment bank", page_count: 4 });
    templateId = template.id;
    canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(database().db, school, 5);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    submissions = (await teacher.exam.batches.queue({ batch_id: batch.id })).submissions.map((submission) => submission.id);
  });

  const comment = (marker: School["teacher"], submissionId: string, text: string | null) =>
    as(marker).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: canvas.ids.q2, awarded_marks: 1, comment: text } });

  it("offers the comments given most on the question's marks, and a saved comment once, to every marker of the template", async () => {
    const units = "Remember the units: cm²";
    const method = "Show your method";
    for (const [index, text] of [units, units, units, method, method].entries()) await comment(index % 2 ? school.head : school.teacher, submissions[index]!, text);
    // Used once, or blank: not offered.
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissions[0]!, question_id: canvas.ids.q1a, awarded_marks: 1, comment: units } });

    expect(await as(school.otherTeacher).exam.comments.forQuestion({ question_id: canvas.ids.q2 })).toEqual({
      saved: [],
      frequent: [
        { text: units, uses: 3 },
        { text: method, uses: 2 },
      ],
    });

    const dictated = await as(school.otherTeacher).exam.comments.save({ question_id: canvas.ids.q2, body: { text: "  Good use of the diagram  " } });
    expect(dictated).toMatchObject({ text: "Good use of the diagram", created_by: school.otherTeacher.id, created_by_name: school.otherTeacher.full_name });
    // Saved twice is saved once; a saved comment leaves the frequent list.
    expect((await as(school.teacher).exam.comments.save({ question_id: canvas.ids.q2, body: { text: "Good use of the diagram" } })).id).toBe(dictated.id);
    const savedUnits = await as(school.teacher).exam.comments.save({ question_id: canvas.ids.q2, body: { text: units } });
    const bank = await as(school.head).exam.comments.forQuestion({ question_id: canvas.ids.q2 });
    expect(bank.saved.map((saved) => saved.text)).toEqual(["Good use of the diagram", units]);
    expect(bank.frequent).toEqual([{ text: method, uses: 2 }]);

    // Removed by whoever saved it or the template's owner; a colleague may not.
    await expect(as(school.otherTeacher).exam.comments.remove({ comment_id: savedUnits.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await as(school.teacher).exam.comments.remove({ comment_id: dictated.id })).toEqual({ id: dictated.id });
    const removed = await callRest(removeCommentRoute, { method: "DELETE", token: school.otherTeacher.token, params: { comment_id: dictated.id } });
    expect(removed.status).toBe(404);
    expect((await as(school.teacher).exam.comments.forQuestion({ question_id: canvas.ids.q2 })).saved.map((saved) => saved.id)).toEqual([savedUnits.id]);
  });

  it("shows nothing to another school or to a student (404), and refuses a container's comments", async () => {
    const [saved] = (await as(school.teacher).exam.comments.forQuestion({ question_id: canvas.ids.q2 })).saved;
    for (const outsider of [otherSchool.teacher, otherSchool.admin, school.student]) {
      const listed = await callRest(listCommentsRoute, { token: outsider.token, params: { question_id: canvas.ids.q2 } });
      expect(listed.status).toBe(404);
      expect(await listed.json()).toEqual({ detail: "Question not found" });
      const posted = await callRest(saveCommentRoute, { method: "POST", token: outsider.token, params: { question_id: canvas.ids.q2 }, body: { text: "Taken over" } });
      expect(posted.status).toBe(404);
      const deleted = await callRest(removeCommentRoute, { method: "DELETE", token: outsider.token, params: { comment_id: saved!.id } });
      expect(deleted.status).toBe(404);
    }
    const container = await callRest(saveCommentRoute, { method: "POST", token: school.teacher.token, params: { question_id: canvas.ids.q1 }, body: { text: "Whole question" } });
    expect(container.status).toBe(400);
    expect((await container.json()).detail).toMatch(/Question 1 takes no mark itself/);
    expect((await as(school.teacher).exam.templates.get({ template_id: templateId })).id).toBe(templateId);
  });

  it("refuses hostile comment text with a 400, storing only text that can be stored", async () => {
    const { seed, cases } = fuzzSettings(60);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ text: hostileString }), fc.anything()), async (body) => {
        const reply = await callRest(saveCommentRoute, { method: "POST", token: school.teacher.token, params: { question_id: canvas.ids.q1b }, body });
        const answer = await reply.json();
        if (reply.status === 201) {
          expect(answer.text).toBe((body as { text: string }).text.trim());
          return;
        }
        expect(reply.status, JSON.stringify(answer)).toBe(400);
        expect(answer.detail).toEqual(expect.any(String));
      }),
      { seed, numRuns: cases },
    );
    const bank = await as(school.teacher).exam.comments.forQuestion({ question_id: canvas.ids.q1b });
    for (const saved of bank.saved) expect(saved.text.includes("\u0000")).toBe(false);
  });
});
