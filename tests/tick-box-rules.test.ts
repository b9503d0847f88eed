import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { examResponseAreas } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { multipleChoiceMarks } from "../lib/rules/tick-boxes";
import { describeOnEachDatabase } from "./support/database";
import { sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * Tick boxes in the template (issue 36, item 1): a Multiple choice question's area carries its boxes
 * (labels A–Z, page fractions), the mark scheme names the right ones, and the canvas save refuses
 * what a reader could not use, with a sentence naming the question.
 */
describeOnEachDatabase("tick boxes in the template", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Ticks");
    otherSchool = await createSchool(database().db, "TicksElsewhere");
  });

  const boxes = [
    { label: "A", x: 0.12, y: 0.22, width: 0.02, height: 0.014, shape: "square" as const },
    { label: "B", x: 0.22, y: 0.22, width: 0.02, height: 0.014, shape: "square" as const },
    { label: "C", x: 0.32, y: 0.22, width: 0.02, height: 0.014, shape: "round" as const },
  ];

  /** The sample canvas with question 2 as Multiple choice: its area (page 3, 0.1–0.6 × 0.2–0.45) holds `tickBoxes`. */
  function multipleChoiceCanvas(tickBoxes: unknown = boxes, scheme: unknown = { type: "multiple_choice", correct: ["B"], allow_multiple: false }) {
    const { ids, ...canvas } = sampleCanvas();
    return {
      ids,
      canvas: {
        ...canvas,
        questions: canvas.questions.map((q) => (q.id === ids.q2 ? { ...q, answer_type: "multiple_choice", mark_scheme: scheme } : q)),
        response_areas: canvas.response_areas.map((area) => (area.question_id === ids.q2 ? { ...area, tick_boxes: tickBoxes } : area)),
      },
    };
  }

  async function newTemplate() {
    return as(school.teacher).exam.templates.create({ title: `Ticks ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
  }

  it("saves an area's tick boxes and the multiple-choice scheme, and gives them back as they were", async () => {
    const teacher = as(school.teacher);
    const template = await newTemplate();
    const { ids, canvas } = multipleChoiceCanvas();
    const saved = await teacher.exam.templates.save({ template_id: template.id, body: canvas as never });
    const areaOf = (t: typeof saved, questionId: string) => t.response_areas.find((area) => area.question_id === questionId)!;
    expect(areaOf(saved, ids.q2).tick_boxes).toEqual(boxes);
    const got = await teacher.exam.templates.get({ template_id: template.id });
    expect(areaOf(got, ids.q2).tick_boxes).toEqual(boxes);
    // A written area has none, and a client that never sends the field saves one.
    expect(areaOf(got, ids.q1a).tick_boxes).toBeNull();
    expect(got.questions.find((q) => q.id === ids.q2)).toMatchObject({ answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: ["B"], allow_multiple: false } });
    // A colleague at the school reads them too; another school does not see the template.
    expect(areaOf(await as(school.otherTeacher).exam.templates.get({ template_id: template.id }), ids.q2).tick_boxes).toEqual(boxes);
    await expect(as(otherSchool.teacher).exam.templates.get({ template_id: template.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  const refusals: [string, unknown, unknown, RegExp][] = [
    ["a label used twice", [boxes[0], { ...boxes[1], label: "A" }], undefined, /question 2: the label A is used by two boxes of this area/],
    ["a label that is not a letter", [{ ...boxes[0], label: "1" }], { type: "multiple_choice", correct: [], allow_multiple: false }, /label: question 2: a box's label is one capital letter, A to Z/],
    ["a box outside its area", [boxes[0], { ...boxes[1], x: 0.7 }], undefined, /question 2: tick box B lies outside its answer area/],
    ["a box too large to be a tick box", [{ ...boxes[0], width: 0.3 }], { type: "multiple_choice", correct: [], allow_multiple: false }, /width must be between 0.004 and 0.1 of the page/],
    ["an unknown shape", [{ ...boxes[0], shape: "star" }], { type: "multiple_choice", correct: [], allow_multiple: false }, /shape must be square or round/],
    ["more than 26 boxes", Array.from({ length: 27 }, () => boxes[0]), undefined, /at most 26 tick boxes/],
    ["a right answer that is not a box", boxes, { type: "multiple_choice", correct: ["D"], allow_multiple: false }, /question 2: the right answer D is not a tick box of its areas \(its boxes are A, B, C\)/],
    ["two right answers when one tick is allowed", boxes, { type: "multiple_choice", correct: ["A", "B"], allow_multiple: false }, /question 2: correct: only one box can be right unless more than one tick is allowed/],
    ["a scheme with a field it does not use", boxes, { type: "multiple_choice", correct: ["A"], allow_multiple: false, partial: true }, /question 2: the multiple-choice scheme has fields it does not use \(partial\)/],
    ["a scheme without allow_multiple", boxes, { type: "multiple_choice", correct: ["A"] }, /question 2: allow_multiple: allow_multiple must be true or false/],
  ];

  for (const [what, tickBoxes, scheme, message] of refusals) {
    it(`refuses ${what}, with a sentence, and keeps the template as it was`, async () => {
      const teacher = as(school.teacher);
      const template = await newTemplate();
      const { canvas } = multipleChoiceCanvas(tickBoxes, scheme);
      await expect(teacher.exam.templates.save({ template_id: template.id, body: canvas as never })).rejects.toMatchObject({ code: "BAD_REQUEST", message });
      expect((await teacher.exam.templates.get({ template_id: template.id })).questions).toEqual([]);
    });
  }

  it("refuses tick boxes in a context area", async () => {
    const teacher = as(school.teacher);
    const template = await newTemplate();
    const { ids, canvas } = multipleChoiceCanvas();
    const contextual = { ...canvas, response_areas: canvas.response_areas.map((area) => (area.question_id === ids.q2 ? { ...area, kind: "context" as const } : area)) };
    await expect(teacher.exam.templates.save({ template_id: template.id, body: contextual as never })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: /question 2: a context area is only shown, so it holds no tick boxes/,
    });
  });

  it("the mark scheme alone (PATCH) is checked against the boxes as saved", async () => {
    const teacher = as(school.teacher);
    const template = await newTemplate();
    const { ids, canvas } = multipleChoiceCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas as never });
    await expect(
      teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { mark_scheme: { type: "multiple_choice", correct: ["E"], allow_multiple: false } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: /question 2: the right answer E is not a tick box/ });
    const edited = await teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { mark_scheme: { type: "multiple_choice", correct: ["A", "C"], allow_multiple: true } } });
    expect(edited.mark_scheme).toEqual({ type: "multiple_choice", correct: ["A", "C"], allow_multiple: true });
  });

  it("a Ready template needs every multiple-choice question's right answer, whichever way it is asked", async () => {
    const teacher = as(school.teacher);
    const template = await newTemplate();
    const { ids, canvas } = multipleChoiceCanvas(boxes, { type: "multiple_choice", correct: [], allow_multiple: false });
    await expect(teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } as never })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "Question 2: choose its right tick box before the template is Ready",
    });
    await teacher.exam.templates.save({ template_id: template.id, body: canvas as never });
    await expect(teacher.exam.templates.save({ template_id: template.id, body: { status: "ready" } })).rejects.toMatchObject({
      message: "Question 2: choose its right tick box before the template is Ready",
    });
    await teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { mark_scheme: { type: "multiple_choice", correct: ["C"], allow_multiple: false } } });
    expect((await teacher.exam.templates.save({ template_id: template.id, body: { status: "ready" } })).status).toBe("ready");
    await expect(
      teacher.exam.questions.editMarkScheme({ question_id: ids.q2, body: { mark_scheme: { type: "multiple_choice", correct: [], allow_multiple: false } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Question 2: choose its right tick box before the template is Ready: set the template back to Draft to clear it" });
  });

  it("the database bounds the column whoever writes it", async () => {
    const template = await newTemplate();
    const { canvas } = multipleChoiceCanvas();
    await as(school.teacher).exam.templates.save({ template_id: template.id, body: canvas as never });
    const write = (tickBoxes: unknown) =>
      asService(database().db, (tx) => tx.update(examResponseAreas).set({ tick_boxes: tickBoxes as never }).where(eq(examResponseAreas.template_id, template.id)));
    await expect(write({ label: "A" })).rejects.toThrow();
    await expect(write(Array.from({ length: 27 }, () => boxes[0]))).rejects.toThrow();
  });

  it("hostile boxes are saved only when every rule holds, and otherwise refused as the teacher's mistake (never a 500)", async () => {
    const teacher = as(school.teacher);
    const template = await newTemplate();
    const anyNumber = fc.oneof(fc.double({ noNaN: false }), fc.double({ min: 0, max: 1, noNaN: true }));
    const box = fc.record({
      label: fc.oneof(fc.constantFrom("A", "B", "C", "Z"), fc.string({ maxLength: 3 })),
      x: anyNumber,
      y: anyNumber,
      width: fc.oneof(anyNumber, fc.double({ min: 0.004, max: 0.1, noNaN: true })),
      height: fc.oneof(anyNumber, fc.double({ min: 0.004, max: 0.1, noNaN: true })),
      shape: fc.oneof(fc.constantFrom("square", "round"), fc.string({ maxLength: 6 })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(box, { maxLength: 4 }), fc.subarray(["A", "B", "C", "Z"]), fc.boolean(), async (tickBoxes, correct, allowMultiple) => {
        const { ids, canvas } = multipleChoiceCanvas(tickBoxes, { type: "multiple_choice", correct, allow_multiple: allowMultiple });
        try {
          const saved = await teacher.exam.templates.save({ template_id: template.id, body: canvas as never });
          const stored = saved.response_areas.find((area) => area.question_id === ids.q2)!.tick_boxes!;
          expect(stored).toEqual(tickBoxes);
          // What was saved keeps every rule.
          for (const stored_box of stored) {
            expect(stored_box.label).toMatch(/^[A-Z]$/);
            expect(stored_box.x).toBeGreaterThanOrEqual(0.1 - 1e-4);
            expect(stored_box.x + stored_box.width).toBeLessThanOrEqual(0.6 + 1e-4);
            expect(stored_box.y + stored_box.height).toBeLessThanOrEqual(0.45 + 1e-4);
          }
          expect(correct.every((label) => stored.some((b) => b.label === label))).toBe(true);
          expect(allowMultiple || correct.length <= 1).toBe(true);
        } catch (error) {
          expect(error).toMatchObject({ code: "BAD_REQUEST" });
        }
      }),
      { numRuns: 40 },
    );
  });
});


it("multiple choice is all or nothing: the marks when the ticks are exactly the right boxes", () => {
  expect(multipleChoiceMarks({ correct: ["B"] }, 2, ["B"])).toBe(2);
  expect(multipleChoiceMarks({ correct: ["B"] }, 2, ["B", "C"])).toBe(0);
  expect(multipleChoiceMarks({ correct: ["A", "C"] }, 3, ["C", "A"])).toBe(3);
  expect(multipleChoiceMarks({ correct: ["A", "C"] }, 3, ["A"])).toBe(0);
  expect(multipleChoiceMarks({ correct: ["A"] }, 1, [])).toBe(0);
  expect(multipleChoiceMarks({ correct: [] }, 1, [])).toBe(0);
});
