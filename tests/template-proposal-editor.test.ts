import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type EditorDocument,
  NAME_BOX_ID,
  type Proposal,
  acceptAll,
  acceptItem,
  afterSave,
  applyProposal,
  comparableDocument,
  deleteQuestion,
  discardProposed,
  maxMarksEdit,
  nextProposed,
  proposedCount,
  proposedStops,
  readyProblem,
  saveBody,
  updateArea,
  updateQuestion,
} from "../components/templates/editor-state";
import { validateCanvas } from "../server/exam/canvas";
import { fuzzSettings } from "./support/hostile-input";

/** The template editor with a proposal read from the paper (issue 37, item 2): proposed items, accepting them, the next to check. */

const emptyDoc: EditorDocument = { title: "Mock", subject: null, status: "draft", page_count: 2, questions: [], areas: [], boundaries: [], name_box: null };
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const question = (n: number, label: string, parent: number | null, max_marks: number | null, is_container = false) => ({
  id: id(n),
  parent_id: parent === null ? null : id(parent),
  label,
  max_marks,
  answer_type: null,
  mark_scheme: null,
  spec_ref: null,
  is_container,
});
const area = (n: number, of: number, page: number, y: number) => ({ id: id(100 + n), question_id: id(of), page, kind: "response" as const, response_form: null, x: 0.1, y, width: 0.8, height: 0.1, tick_boxes: null });

/** Question 1 (sure), 2 with parts 2(a) (check) and 2(b) (sure), 3 (check); the name box (sure). */
const proposal: Proposal = {
  questions: [question(1, "1", null, 2), question(2, "2", null, 5, true), question(3, "2(a)", 2, 3), question(4, "2(b)", 2, 2), question(5, "3", null, null)],
  response_areas: [area(1, 1, 1, 0.3), area(3, 3, 1, 0.6), area(4, 4, 2, 0.2), area(5, 5, 2, 0.5)],
  name_box: { page: 1, x: 0.1, y: 0.05, width: 0.5, height: 0.05 },
  items: [
    { question_id: id(1), confidence: "sure" },
    { question_id: id(2), confidence: "check" },
    { question_id: id(3), confidence: "check" },
    { question_id: id(4), confidence: "sure" },
    { question_id: id(5), confidence: "check" },
  ],
  name_box_confidence: "sure",
  warnings: [
    { message: "Question 3: no marks found", question_id: id(5) },
    { message: "The marks found add up to 7 (one part without marks), the cover says 10", question_id: null },
  ],
};

const proposed = () => applyProposal(emptyDoc, proposal);
const canvasOf = (doc: EditorDocument) => {
  const body = saveBody(doc);
  return { questions: body.questions, response_areas: body.response_areas, boundaries: body.boundaries };
};

describe("a proposal in the template editor", () => {
  it("is drawn in with every item proposed, the name box first and each question's parts as its stops; nothing of it is saved", () => {
    const doc = proposed();
    expect(doc.questions.map((q) => q.label)).toEqual(["1", "2", "2(a)", "2(b)", "3"]);
    expect(doc.name_box).toEqual(proposal.name_box);
    expect(proposedStops(doc).map((stop) => stop.id)).toEqual([NAME_BOX_ID, id(1), id(3), id(4), id(5)]);
    expect(proposedCount(doc)).toBe(5);
    const body = saveBody(doc);
    expect(body.questions).toEqual([]);
    expect(body.response_areas).toEqual([]);
    expect(body).not.toHaveProperty("name_box");
  });

  it("the accept key takes the selected item and goes to the next one to check, then to the next proposed one", () => {
    let doc = proposed();
    // From nothing selected: the first to check (2(a)), not the name box or question 1, which are sure.
    expect(nextProposed(doc, null)).toBe(id(3));
    doc = acceptItem(doc, id(3));
    // 2(a) accepted takes its question 2 with it (a part needs its question), not its sibling.
    expect(doc.proposed).not.toHaveProperty(id(2));
    expect(doc.proposed).toHaveProperty(id(4));
    expect(nextProposed(doc, id(3))).toBe(id(5));
    doc = acceptItem(doc, id(5));
    // Accepted is not answered: the sentence about question 3 stays until its marks are typed.
    expect(doc.warnings).toHaveLength(2);
    expect(updateQuestion(doc, id(5), maxMarksEdit("3")).warnings?.map((w) => w.message)).toEqual(["The marks found add up to 7 (one part without marks), the cover says 10"]);
    // Nothing left to check: the next proposed one after 3, round to the start.
    expect(nextProposed(doc, id(5))).toBe(NAME_BOX_ID);
    doc = acceptItem(doc, NAME_BOX_ID);
    expect(nextProposed(doc, NAME_BOX_ID)).toBe(id(1));
    doc = acceptItem(acceptItem(doc, id(1)), id(4));
    expect(nextProposed(doc, id(4))).toBeNull();
    expect(saveBody(doc).questions.map((q) => q.label)).toEqual(["1", "2", "2(a)", "2(b)", "3"]);
    expect(saveBody(doc).name_box).toEqual(proposal.name_box);
  });

  it("accepting a question with parts accepts its parts; editing an item's marks or its area accepts it", () => {
    expect(proposedStops(acceptItem(proposed(), id(2))).map((stop) => stop.id)).toEqual([NAME_BOX_ID, id(1), id(5)]);
    const marked = updateQuestion(proposed(), id(5), maxMarksEdit("4"));
    expect(marked.proposed).not.toHaveProperty(id(5));
    expect(saveBody(marked).questions.map((q) => [q.label, q.max_marks])).toEqual([["3", 4]]);
    const moved = updateArea(proposed(), id(101), { y: 0.32 });
    expect(moved.proposed).not.toHaveProperty(id(1));
    expect(moved.proposed).toHaveProperty(id(5));
  });

  it("Ready is refused while items are proposed, with how many; a deleted proposed item is no longer waited for", () => {
    const ready = { ...proposed(), status: "ready" as const };
    expect(readyProblem(ready)?.message).toBe(
      "5 items read from the paper are still proposed: accept them (select and press A, or Shift+A for all) or delete them before setting Ready.",
    );
    const fewer = deleteQuestion(acceptItem(acceptItem(ready, NAME_BOX_ID), id(2)), id(1));
    expect(readyProblem(fewer)?.message).toMatch(/^1 item read from the paper is still proposed: accept it/);
    // Once all are accepted, Ready asks for what it always does (question 3's marks).
    expect(readyProblem(acceptAll(ready))?.message).toBe("Question 3: maximum marks are required before the template is Ready.");
  });

  it("reading the paper again replaces only what is still proposed, and keeps what the teacher accepted or changed", () => {
    const accepted = updateQuestion(acceptItem(proposed(), id(1)), id(5), { label: "3", max_marks: 6 });
    const again: Proposal = {
      ...proposal,
      questions: proposal.questions.map((q) => ({ ...q, id: q.id.replace("0000-4000", "1111-4000") })),
      response_areas: proposal.response_areas.map((a) => ({ ...a, id: a.id.replace("0000-4000", "1111-4000"), question_id: a.question_id.replace("0000-4000", "1111-4000") })),
      items: proposal.items.map((item) => ({ ...item, question_id: item.question_id.replace("0000-4000", "1111-4000") })),
      warnings: [],
    };
    again.questions = again.questions.map((q) => ({ ...q, parent_id: q.parent_id?.replace("0000-4000", "1111-4000") ?? null }));
    const read = applyProposal(accepted, again);
    // 1 and 3 are the teacher's and stay; 2 and its parts come again from the new reading; the name box too (still proposed).
    expect(read.questions.map((q) => [q.label, q.id.includes("1111")])).toEqual([
      ["1", false],
      ["3", false],
      ["2", true],
      ["2(a)", true],
      ["2(b)", true],
    ]);
    expect(read.questions.find((q) => q.label === "3")?.max_marks).toBe(6);
    expect(read.areas.filter((a) => a.question_id.includes("1111")).map((a) => a.question_id)).toEqual([again.questions[2]!.id, again.questions[3]!.id]);
    expect(Object.keys(read.proposed ?? {}).sort()).toEqual([again.questions[1]!.id, again.questions[2]!.id, again.questions[3]!.id, NAME_BOX_ID].sort());
  });

  it("discarding what was read removes only what is still proposed, with the sentences", () => {
    const doc = discardProposed(updateQuestion(acceptItem(proposed(), id(1)), id(5), maxMarksEdit("4")));
    expect(doc.questions.map((q) => q.label)).toEqual(["1", "3"]);
    expect(doc.areas.map((a) => a.question_id)).toEqual([id(1), id(5)]);
    expect(doc.name_box).toBeNull();
    expect(doc.warnings).toEqual([]);
    expect(proposedCount(doc)).toBe(0);
  });

  it("after a save the items still proposed stay in the editor, and only they and the sentences make it differ from the server", () => {
    const doc = acceptItem(proposed(), id(1));
    const serverCopy = { ...emptyDoc, questions: doc.questions.filter((q) => q.id === id(1)), areas: doc.areas.filter((a) => a.question_id === id(1)) };
    expect(afterSave(serverCopy, doc)).toBe(doc);
    const all = acceptAll(doc);
    const fresh = { ...emptyDoc, questions: all.questions, areas: all.areas, name_box: all.name_box };
    const kept = afterSave(fresh, all);
    expect(kept.warnings).toEqual(all.warnings);
    expect(comparableDocument(kept)).toEqual(comparableDocument(fresh));
  });

  it("whatever the teacher accepts, edits or deletes, the save holds no unaccepted guess and is a canvas the server takes", () => {
    const { seed } = fuzzSettings(200);
    const ids = [NAME_BOX_ID, ...proposal.questions.map((q) => q.id)];
    const step = fc.oneof(
      fc.record({ kind: fc.constant("accept" as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant("marks" as const), id: fc.constantFrom(...ids.slice(1)), marks: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant("delete" as const), id: fc.constantFrom(...ids.slice(1)) }),
      fc.record({ kind: fc.constant("move" as const), id: fc.constantFrom(...proposal.response_areas.map((a) => a.id)), y: fc.double({ min: 0, max: 0.9, noNaN: true }) }),
      fc.record({ kind: fc.constant("next" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), (steps) => {
        let doc = proposed();
        let selected: string | null = null;
        for (const s of steps) {
          if (s.kind === "accept") doc = acceptItem(doc, s.id);
          else if (s.kind === "marks") doc = doc.questions.some((q) => q.id === s.id && !q.is_container) ? updateQuestion(doc, s.id, maxMarksEdit(String(s.marks))) : doc;
          else if (s.kind === "delete") doc = deleteQuestion(doc, s.id);
          else if (s.kind === "move") doc = updateArea(doc, s.id, { y: s.y });
          else {
            selected = nextProposed(doc, selected);
            if (selected) doc = acceptItem(doc, selected);
          }
          const stillProposed = new Set(Object.keys(doc.proposed ?? {}));
          const canvas = canvasOf(doc);
          expect(canvas.questions.filter((q) => stillProposed.has(q.id))).toEqual([]);
          expect(canvas.response_areas.filter((a) => stillProposed.has(a.question_id))).toEqual([]);
          if (stillProposed.has(NAME_BOX_ID)) expect(saveBody(doc)).not.toHaveProperty("name_box");
          expect(() => validateCanvas(canvas, 2)).not.toThrow();
          // What Ready waits for is exactly what is still proposed.
          expect(proposedCount(doc) === 0).toBe(proposedStops(doc).length === 0);
          if (nextProposed(doc, null) === null) expect(proposedStops(doc)).toEqual([]);
        }
      }),
      { seed, numRuns: 200 },
    );
  });
});
