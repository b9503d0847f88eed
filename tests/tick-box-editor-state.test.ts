import { describe, expect, it } from "vitest";
import {
  type EditorDocument,
  addTickBox,
  allowMultiple,
  chooseCorrect,
  moveTickBox,
  parseTickBoxId,
  readyProblem,
  questionBoxLabels,
  relabelTickBox,
  removeTickBox,
  saveBody,
  setAnswerType,
  setTickBoxes,
  tickBoxId,
} from "../components/templates/editor-state";

/** The template editor's tick boxes: what the teacher's edits do to the document that is saved. */
describe("tick boxes in the template editor", () => {
  const area = { id: "area-1", question_id: "q1", page: 2, kind: "response" as const, response_form: null, x: 0.1, y: 0.2, width: 0.5, height: 0.2 };
  const found = [
    { label: "A", x: 0.12, y: 0.22, width: 0.02, height: 0.014, shape: "square" as const },
    { label: "B", x: 0.22, y: 0.22, width: 0.02, height: 0.014, shape: "square" as const },
    { label: "C", x: 0.32, y: 0.22, width: 0.02, height: 0.014, shape: "round" as const },
  ];
  const question = { id: "q1", parent_id: null, label: "1", max_marks: 1, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false };
  const doc: EditorDocument = { title: "T", subject: null, status: "draft", page_count: 2, questions: [question], areas: [area], boundaries: [], name_box: null };
  const schemeOf = (d: EditorDocument) => d.questions[0]!.mark_scheme;

  it("Multiple choice gives the question its scheme (notes kept); leaving it drops the boxes and keeps the notes as text", () => {
    const noted = { ...doc, questions: [{ ...question, mark_scheme: { type: "text", text: "Accept a cross" } }] };
    const chosen = setTickBoxes(setAnswerType(noted, "q1", "multiple_choice"), "area-1", found);
    expect(schemeOf(chosen)).toEqual({ type: "multiple_choice", correct: [], allow_multiple: false, text: "Accept a cross" });
    const back = setAnswerType(chosen, "q1", "short_text");
    expect(schemeOf(back)).toEqual({ type: "text", text: "Accept a cross" });
    expect(back.areas[0]!.tick_boxes).toBeNull();
  });

  it("one right box unless more than one tick is allowed; the right answers follow a relabel and a removal", () => {
    let d = setTickBoxes(setAnswerType(doc, "q1", "multiple_choice"), "area-1", found);
    d = { ...d, questions: [{ ...d.questions[0]!, mark_scheme: chooseCorrect(schemeOf(d), "B", true) }] };
    d = { ...d, questions: [{ ...d.questions[0]!, mark_scheme: chooseCorrect(schemeOf(d), "C", true) }] };
    expect(schemeOf(d)).toMatchObject({ correct: ["C"], allow_multiple: false });
    d = { ...d, questions: [{ ...d.questions[0]!, mark_scheme: allowMultiple(schemeOf(d), true) }] };
    d = { ...d, questions: [{ ...d.questions[0]!, mark_scheme: chooseCorrect(schemeOf(d), "A", true) }] };
    expect(schemeOf(d)).toMatchObject({ correct: ["A", "C"], allow_multiple: true });
    // C and A swap letters: the right boxes are the same boxes, now called A and C the other way round.
    d = relabelTickBox(d, "area-1", 2, "A");
    expect(d.areas[0]!.tick_boxes!.map((box) => `${box.label}:${box.shape}`)).toEqual(["C:square", "B:square", "A:round"]);
    expect(schemeOf(d)).toMatchObject({ correct: ["C", "A"] });
    d = removeTickBox(d, "area-1", 0);
    expect(questionBoxLabels(d, "q1")).toEqual(["A", "B"]);
    expect(schemeOf(d)).toMatchObject({ correct: ["A"] });
  });

  it("a drawn box takes the next free letter and stays inside its area, as the save requires", () => {
    const d = setTickBoxes(setAnswerType(doc, "q1", "multiple_choice"), "area-1", found);
    const added = addTickBox(d, "area-1", { x: 0.58, y: 0.05, width: 0.03, height: 0.03 })!;
    const box = added.doc.areas[0]!.tick_boxes![added.index]!;
    expect(box.label).toBe("D");
    expect(box.x + box.width).toBeLessThanOrEqual(area.x + area.width);
    expect(box.y).toBeGreaterThanOrEqual(area.y);
    const moved = moveTickBox(added.doc, "area-1", added.index, { x: -1, y: 2, width: box.width, height: box.height }).areas[0]!.tick_boxes![added.index]!;
    expect(moved.x).toBe(area.x);
    expect(moved.y + moved.height).toBeLessThanOrEqual(area.y + area.height + 1e-9);
    expect(parseTickBoxId(tickBoxId("area-1", 3))).toEqual({ areaId: "area-1", index: 3 });
    expect(parseTickBoxId("area-1")).toBeNull();
  });

  it("saves every area's boxes, and null for an area without (a draft kept from before them too)", () => {
    const d = setTickBoxes(setAnswerType(doc, "q1", "multiple_choice"), "area-1", found);
    const written = { ...area, id: "area-2" };
    const body = saveBody({ ...d, areas: [...d.areas, written] });
    expect(body.response_areas.map((a) => a.tick_boxes)).toEqual([found, null]);
  });

  it("Ready is not saved while a multiple-choice question has no right answer: the editor names it first", () => {
    const d = setTickBoxes(setAnswerType({ ...doc, status: "ready" }, "q1", "multiple_choice"), "area-1", found);
    expect(readyProblem(d)).toEqual({ question: d.questions[0], message: "Question 1: choose its right tick box before the template is Ready." });
    expect(readyProblem({ ...d, questions: [{ ...d.questions[0]!, mark_scheme: chooseCorrect(schemeOf(d), "A", true) }] })).toBeNull();
  });
});
