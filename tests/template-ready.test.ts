import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * A template is Ready only when every markable part has its maximum marks (issue 33, item 11): a new
 * question starts without one in the editor, and the server refuses Ready without it, with a sentence
 * naming the question, whatever path asks (a full save, a status change alone, a cleared maximum).
 */
describeOnEachDatabase("Ready needs every part's maximum marks", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Ready");
    otherSchool = await createSchool(database().db, "ReadyElsewhere");
  });

  /** The sample canvas with the parts at `unset` (indexes into its three parts) left without a maximum; containers without a total. */
  function canvasWithout(unset: readonly number[]) {
    const canvas = sampleCanvas();
    const parts = [canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2];
    const missing = new Set(unset.map((index) => parts[index]));
    const questions = canvas.questions.map((q) => (missing.has(q.id) || (q.is_container && missing.size > 0) ? { ...q, max_marks: null } : q));
    return { ...canvas, questions };
  }

  it("refuses Ready with a part that has no maximum, naming it, and keeps the template as it was", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Draft paper", page_count: 4 });
    const { ids: _ids, ...canvas } = canvasWithout([1]);
    await expect(teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Question 1b: maximum marks are required before the template is Ready",
    });
    // Nothing half-written: the canvas was not replaced and the template is still a draft.
    const after = await teacher.exam.templates.get({ template_id: template.id });
    expect(after).toMatchObject({ status: "draft", questions: [] });
    // As a draft the same canvas saves; Ready alone is then refused for the saved parts.
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    await expect(teacher.exam.templates.save({ template_id: template.id, body: { status: "ready" } })).rejects.toMatchObject({
      message: "Question 1b: maximum marks are required before the template is Ready",
    });
    expect((await teacher.exam.templates.get({ template_id: template.id })).status).toBe("draft");
  });

  it("makes a template Ready exactly when every part has a maximum, whichever parts lack one", async () => {
    const teacher = as(school.teacher);
    await fc.assert(
      fc.asyncProperty(fc.subarray([0, 1, 2]), async (unset) => {
        const template = await teacher.exam.templates.create({ title: `Paper ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
        const { ids: _ids, ...canvas } = canvasWithout(unset);
        const saving = teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
        if (unset.length === 0) expect((await saving).status).toBe("ready");
        else await expect(saving).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^Question (1a|1b|2): maximum marks are required/) });
      }),
      { numRuns: 12 },
    );
  });

  it("does not let a Ready template's part lose its maximum, nor a full save of it drop one", async () => {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Ready paper", page_count: 4 });
    const { ids, ...canvas } = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
    await expect(teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { max_marks: null } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Question 2: maximum marks are required before the template is Ready: set the template back to Draft to clear it",
    });
    const { ids: _other, ...without } = canvasWithout([2]);
    await expect(teacher.exam.templates.save({ template_id: template.id, body: without })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // Back to Draft, the maximum may be cleared while the paper is prepared again.
    await teacher.exam.templates.save({ template_id: template.id, body: { status: "draft" } });
    expect((await teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { max_marks: null } })).max_marks).toBeNull();
  });

  it("answers 404 to another school's teacher, who learns nothing of the rule", async () => {
    const template = await as(school.teacher).exam.templates.create({ title: "Mine", page_count: 4 });
    await expect(as(otherSchool.teacher).exam.templates.save({ template_id: template.id, body: { status: "ready" } })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
