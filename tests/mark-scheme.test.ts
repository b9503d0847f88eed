import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { POST as readRoute } from "../app/api/exam/templates/[template_id]/mark-scheme/read/route";
import { POST as applyRoute } from "../app/api/exam/templates/[template_id]/mark-scheme/apply/route";
import { GET as previewCopyRoute, POST as copyRoute } from "../app/api/exam/templates/[template_id]/copy-from/[source_template_id]/route";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";
import { markScheme } from "./support/mark-schemes";

describeOnEachDatabase("a mark scheme into a template's rubric, and a template copied from another (issue 37, items 3 and 4)", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  /** The school teacher's template with the sample canvas: 1 (parts 1a: 3 marks, 1b: 2), 2: 5 marks. */
  async function paper(title = "Scheme") {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: `${title} ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    const canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas });
    return { template, canvas };
  }
  const rubricOf = async (templateId: string) =>
    (await as(school.teacher).exam.templates.get({ template_id: templateId })).rubric_items.map((item) => ({ question_id: item.question_id, text: item.text, points: item.points }));
  const parts = [
    { label: "1(a)", marks: 3 },
    { label: "1(b)", marks: 2 },
    { label: "2", marks: 5 },
  ];

  beforeAll(async () => {
    school = await createSchool(database().db, "Scheme");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("a pasted scheme's items are proposed per part, matched by label; accepted, the rubric equals the scheme's truth; accepting again adds nothing", async () => {
    const { template, canvas } = await paper();
    const scheme = markScheme(parts, 7, { layout: "lines", labelStyle: "joined" });
    const owner = as(school.teacher);
    const proposal = await owner.exam.rubric.readScheme({ template_id: template.id, text: `${scheme.text}\n7\nB1 for a question the paper has not` });
    expect(proposal.parts.map((part) => [part.label, part.items.map(({ text, points }) => ({ text, points }))])).toEqual([
      ["1a", scheme.truth["1(a)"]],
      ["1b", scheme.truth["1(b)"]],
      ["2", scheme.truth["2"]],
    ]);
    expect(proposal.warnings).toEqual(["Question 7 is in the mark scheme but not on the paper: its items were left out"]);
    // Nothing is stored by reading.
    expect(await rubricOf(template.id)).toEqual([]);

    const applied = await owner.exam.rubric.applyScheme({
      template_id: template.id,
      body: { parts: proposal.parts.map((part) => ({ question_id: part.question_id, items: part.items.map(({ text, points }) => ({ text, points })) })) },
    });
    expect(applied.already_present).toBe(0);
    const byQuestion = (questionId: string) => rubricOf(template.id).then((items) => items.filter((item) => item.question_id === questionId).map(({ text, points }) => ({ text, points })));
    expect(await byQuestion(canvas.ids.q1a)).toEqual(scheme.truth["1(a)"]);
    expect(await byQuestion(canvas.ids.q1b)).toEqual(scheme.truth["1(b)"]);
    expect(await byQuestion(canvas.ids.q2)).toEqual(scheme.truth["2"]);

    const again = await owner.exam.rubric.readScheme({ template_id: template.id, text: scheme.text });
    expect(again.parts.every((part) => part.items.every((item) => item.already_present))).toBe(true);
    const twice = await owner.exam.rubric.applyScheme({
      template_id: template.id,
      body: { parts: again.parts.map((part) => ({ question_id: part.question_id, items: part.items.map(({ text, points }) => ({ text, points })) })) },
    });
    expect(twice).toMatchObject({ created: [], already_present: applied.created.length });
    expect((await rubricOf(template.id)).length).toBe(applied.created.length);

    // A scheme that gives the same mark twice in a part: both are added (what the teacher accepted), once.
    const same = { text: "B1 either reason", points: 1 };
    const doubled = await owner.exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items: [same, same] }] } });
    expect(doubled).toMatchObject({ already_present: 0 });
    expect(doubled.created).toHaveLength(2);
    const doubledAgain = await owner.exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items: [same, same] }] } });
    expect(doubledAgain).toMatchObject({ created: [], already_present: 2 });
  });

  it("says every disagreement: items against the paper's marks, a question with parts given items, parts the scheme gives nothing", async () => {
    const { template } = await paper();
    const proposal = await as(school.teacher).exam.rubric.readScheme({ template_id: template.id, text: "1\nB1 the whole question\n1a\nM1 for 2x = 6\nA1 x = 3" });
    expect(proposal.warnings).toEqual([
      "Question 1 has parts on the paper: give its items to its parts (they were left out)",
      "1a: the items add up to 2, the paper gives 3 marks",
      "1b, 2 have no items in the mark scheme",
    ]);
    const none = await as(school.teacher).exam.rubric.readScheme({ template_id: template.id, text: "Nothing that looks like a scheme" });
    expect(none).toEqual({ parts: [], warnings: ["No question of the paper was found in this mark scheme: check its labels match the paper's (1, 2, 3(a), 3(b)(i) …)"] });
  });

  it("applies all or nothing: a part that fails (a question with parts) leaves nothing written; a colleague is refused, an archived template too", async () => {
    const { template, canvas } = await paper();
    const owner = as(school.teacher);
    const items = [{ text: "M1 (method) 2x = 6", points: 1 }];
    await expect(
      owner.exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items }, { question_id: canvas.ids.q1, items }] } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Question 1 takes no mark itself: give its parts rubric items" });
    expect(await rubricOf(template.id)).toEqual([]);
    // A question of another template: 404, nothing written.
    const other = await paper("Other");
    await expect(
      owner.exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items }, { question_id: other.canvas.ids.q2, items }] } }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await rubricOf(template.id)).toEqual([]);
    await expect(as(school.otherTeacher).exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items }] } })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    for (const outsider of [otherSchool.teacher, otherSchool.admin, otherSchool.head]) {
      await expect(as(outsider).exam.rubric.readScheme({ template_id: template.id, text: "2\nB1 x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(outsider).exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items }] } })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    await owner.exam.templates.archive({ template_id: template.id });
    await expect(owner.exam.rubric.applyScheme({ template_id: template.id, body: { parts: [{ question_id: canvas.ids.q2, items }] } })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "This template is archived: restore it before changing its rubric",
    });
  });

  it("REST: reading answers 200 or a 400 sentence for any text, never a 500; text beyond the limit is refused with a sentence", async () => {
    const { template } = await paper();
    const read = (body: unknown) => callRest(readRoute, { method: "POST", token: school.teacher.token, params: { template_id: template.id }, body });
    const { seed, cases } = fuzzSettings(40);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.record({ text: hostileString }), fc.record({ text: fc.string({ unit: "grapheme", maxLength: 2000 }) }), fc.anything()), async (body) => {
        const reply = await read(body);
        const answer = await reply.json();
        if (reply.status === 200) {
          expect(answer).toEqual({ parts: expect.any(Array), warnings: expect.any(Array) });
          return;
        }
        expect([400, 413], JSON.stringify(answer).slice(0, 300)).toContain(reply.status);
        expect(answer.detail).toEqual(expect.any(String));
      }),
      { seed, numRuns: cases },
    );
    const huge = await read({ text: "1 | x | B1\n".repeat(30_000) });
    expect(huge.status).toBe(400);
    expect((await huge.json()).detail).toMatch(/longer than 200,000 characters: paste it a few questions at a time/);
    const applied = await callRest(applyRoute, {
      method: "POST",
      token: school.teacher.token,
      params: { template_id: template.id },
      body: { parts: [{ question_id: sampleCanvas().ids.q2, items: [{ text: "x", points: 1 }] }] },
    });
    expect(applied.status).toBe(404);
  });

  it("copies a template into another of the school: matched parts take the source's marks, answer type, scheme and items, never twice; the rest stays; all or nothing", async () => {
    const source = await paper("Last year");
    const target = await paper("This year");
    const owner = as(school.teacher);
    await owner.exam.rubric.create({ question_id: source.canvas.ids.q1a, body: { text: "M1 (method) 2x = 6", points: 1, comment: "Good start" } });
    await owner.exam.rubric.create({ question_id: source.canvas.ids.q1a, body: { text: "A1 x = 3", points: 2 } });
    await owner.exam.rubric.create({ question_id: source.canvas.ids.q2, body: { text: "B1 units", points: 1 } });
    await owner.exam.questions.editMarkScheme({ question_id: source.canvas.ids.q2, body: { max_marks: 4, answer_type: "text" } });
    // The target has one of the items already, and one of its own.
    await owner.exam.rubric.create({ question_id: target.canvas.ids.q2, body: { text: "B1 units", points: 1 } });
    await owner.exam.rubric.create({ question_id: target.canvas.ids.q2, body: { text: "Its own item", points: 1 } });

    const preview = await callRest(previewCopyRoute, { method: "GET", token: school.teacher.token, params: { template_id: target.template.id, source_template_id: source.template.id } });
    expect(preview.status).toBe(200);
    const planned = await preview.json();
    expect(planned.matches.map((match: { label: string; items_to_add: number; items_already: number }) => [match.label, match.items_to_add, match.items_already])).toEqual([
      ["1", 0, 0],
      ["1a", 2, 0],
      ["1b", 0, 0],
      ["2", 0, 1],
    ]);
    expect(await rubricOf(target.template.id)).toHaveLength(2);

    // All or nothing: the target's question 2 has a mark of 5, above the source's maximum of 4: 1a's items (copied first) are not kept either.
    const roster = await createClassWithStudents(database().db, school, 1);
    const batch = await owner.exam.batches.create({ template_id: target.template.id, class_id: roster.class.id });
    const [submission] = (await owner.exam.batches.queue({ batch_id: batch.id })).submissions;
    const mark = await owner.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submission!.id, question_id: target.canvas.ids.q2, awarded_marks: 5 } });
    const refused = await callRest(copyRoute, { method: "POST", token: school.teacher.token, params: { template_id: target.template.id, source_template_id: source.template.id } });
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toMatch(/a mark of 5 is already awarded for this question, so the maximum cannot be lower/);
    expect(await rubricOf(target.template.id)).toHaveLength(2);

    await owner.exam.marks.upsert({ mark_id: mark.id, body: { submission_id: submission!.id, question_id: target.canvas.ids.q2, awarded_marks: 3 } });
    const copied = await owner.exam.templates.copyFrom({ template_id: target.template.id, source_template_id: source.template.id });
    expect(copied).toMatchObject({ items_created: 2, questions_changed: 1, source_only: [], target_only: [] });
    const after = await owner.exam.templates.get({ template_id: target.template.id });
    const q2 = after.questions.find((question) => question.id === target.canvas.ids.q2)!;
    expect(q2).toMatchObject({ max_marks: 4, answer_type: "text" });
    expect(after.rubric_items.filter((item) => item.question_id === target.canvas.ids.q2).map((item) => item.text)).toEqual(["B1 units", "Its own item"]);
    expect(after.rubric_items.filter((item) => item.question_id === target.canvas.ids.q1a).map((item) => [item.text, item.points, item.comment])).toEqual([
      ["M1 (method) 2x = 6", 1, "Good start"],
      ["A1 x = 3", 2, null],
    ]);
    // Copying again adds nothing.
    expect(await owner.exam.templates.copyFrom({ template_id: target.template.id, source_template_id: source.template.id })).toMatchObject({ items_created: 0, questions_changed: 0 });

    // Only the owner copies; the template itself is no source; another school sees neither.
    await expect(as(school.otherTeacher).exam.templates.copyFrom({ template_id: target.template.id, source_template_id: source.template.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(owner.exam.templates.previewCopy({ template_id: target.template.id, source_template_id: target.template.id })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    for (const outsider of [otherSchool.teacher, otherSchool.admin]) {
      await expect(as(outsider).exam.templates.previewCopy({ template_id: target.template.id, source_template_id: source.template.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(outsider).exam.templates.copyFrom({ template_id: target.template.id, source_template_id: source.template.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
  });
});
