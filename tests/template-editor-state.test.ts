import { describe, expect, it } from "vitest";
import { describeChanges } from "../components/templates/editor-drafts";
import fc from "fast-check";
import {
  type EditorDocument,
  type EditorQuestion,
  addPart,
  childrenOf,
  deleteQuestion,
  firstMaxMarksError,
  maxMarksEdit,
  moveQuestion,
  newQuestion,
  readyProblem,
  saveBody,
  suggestedPartLabel,
  typedMaxMarks,
  updateQuestion,
} from "../components/templates/editor-state";

const emptyDoc: EditorDocument = { title: "Mock", subject: null, status: "draft", page_count: 2, questions: [], areas: [], boundaries: [], name_box: null };

function withQuestion(doc = emptyDoc): { doc: EditorDocument; question: EditorQuestion } {
  const question = newQuestion(doc.questions);
  return { doc: { ...doc, questions: [...doc.questions, question] }, question };
}

describe("the Max marks field in the template editor", () => {
  it("keeps what the teacher typed, takes a valid maximum, and never turns -2 into 0 or 1e3 into 1000", () => {
    const { doc, question } = withQuestion();
    for (const typed of ["-2", "1e3", "0"]) {
      const edited = updateQuestion(doc, question.id, maxMarksEdit(typed));
      // A new question has no maximum yet: nothing refused is turned into one.
      expect(edited.questions[0]!.max_marks, typed).toBeNull();
      expect(typedMaxMarks(edited.questions[0]!), typed).toBe(typed);
      expect(firstMaxMarksError(edited)?.message, typed).toMatch(/^Question 1: maximum marks must be (between 0\.5 and 500|a number such as 2 or 1\.5)\.$/);
    }
    const kept = updateQuestion(doc, question.id, maxMarksEdit("2.50"));
    expect(kept.questions[0]).toMatchObject({ max_marks: 2.5, max_marks_input: "2.50" });
    expect(typedMaxMarks(kept.questions[0]!)).toBe("2.50");
    expect(firstMaxMarksError(kept)).toBeNull();
    const plain = updateQuestion(kept, question.id, maxMarksEdit("3"));
    expect(plain.questions[0]!.max_marks_input).toBeUndefined();
    expect(typedMaxMarks(plain.questions[0]!)).toBe("3");
  });

  it("sends neither the typed text nor a stale total: a question with parts is saved at their total", () => {
    const { doc, question } = withQuestion();
    const stale = updateQuestion(doc, question.id, { max_marks: 9 });
    const { doc: withPart, part } = addPart(stale, question.id);
    const { doc: twoParts, part: second } = addPart(updateQuestion(withPart, part.id, maxMarksEdit("2.50")), question.id);
    const body = saveBody(updateQuestion(twoParts, second.id, { max_marks: 1 }));
    expect(body.questions.map((q) => [q.label, q.max_marks])).toEqual([["1", 3.5], ["1a", 2.5], ["1b", 1]]);
    expect(body.questions.some((q) => "max_marks_input" in q)).toBe(false);
  });
});

describe("what leaving the editor would lose", () => {
  it("names the changes a teacher made", () => {
    const { doc: saved } = withQuestion();
    const { doc: more } = withQuestion(saved);
    const renamed = { ...updateQuestion(more, saved.questions[0]!.id, { label: "1 (a)" }), title: "Mock 2" };
    const withArea = {
      ...renamed,
      areas: [{ id: "a1", question_id: saved.questions[0]!.id, page: 1, kind: "response" as const, response_form: null, x: 0.1, y: 0.1, width: 0.5, height: 0.2 }],
    };
    expect(describeChanges(saved, withArea)).toBe("1 question added, 1 question changed, 1 area drawn, the title changed");
    expect(describeChanges(withArea, saved)).toBe("1 question changed, 1 question deleted, 1 area deleted, the title changed");
  });
});

describe("a new question in the template editor (issue 33, item 11)", () => {
  it("starts without maximum marks, which Ready then asks for, naming the question", () => {
    const { doc, question } = withQuestion();
    expect(question.max_marks).toBeNull();
    expect(readyProblem(doc)).toBeNull();
    const ready = { ...doc, status: "ready" as const };
    expect(readyProblem(ready)).toEqual({ question, message: "Question 1: maximum marks are required before the template is Ready." });
    expect(readyProblem(updateQuestion(ready, question.id, maxMarksEdit("4")))).toBeNull();
    // A question with parts needs its parts' maxima, not its own.
    const { doc: withPart, part } = addPart(updateQuestion(ready, question.id, maxMarksEdit("4")), question.id);
    expect(readyProblem(withPart)?.question?.id).toBe(part.id);
  });
});

describe("part labels suggested from the parent", () => {
  const labels = (doc: EditorDocument) => doc.questions.map((q) => q.label);
  function paper() {
    const { doc, question } = withQuestion();
    let current = doc;
    for (let index = 0; index < 3; index++) current = addPart(current, question.id).doc;
    return { doc: current, parentId: question.id };
  }

  it("suggests 3a, 3b from the parent and 3a(i) one level down", () => {
    expect(suggestedPartLabel("3", 0, 0)).toBe("3a");
    expect(suggestedPartLabel("3", 0, 1)).toBe("3b");
    expect(suggestedPartLabel("3a", 1, 1)).toBe("3a(ii)");
    const { doc, parentId } = paper();
    expect(labels(doc)).toEqual(["1", "1a", "1b", "1c"]);
    const { doc: deeper } = addPart(doc, childrenOf(doc.questions, parentId)[0]!.id);
    expect(labels(deeper)).toEqual(["1", "1a", "1a(i)", "1b", "1c"]);
  });

  it("relabels the parts with their parent, down the tree, but keeps a label the teacher typed", () => {
    const { doc, parentId } = paper();
    const { doc: deeper } = addPart(doc, childrenOf(doc.questions, parentId)[0]!.id);
    expect(labels(updateQuestion(deeper, parentId, { label: "3" }))).toEqual(["3", "3a", "3a(i)", "3b", "3c"]);
    // A part relabelled by hand: its siblings no longer follow the suggestion, and nothing is overwritten.
    const typed = updateQuestion(doc, childrenOf(doc.questions, parentId)[1]!.id, { label: "1(b)" });
    expect(labels(typed)).toEqual(["1", "1a", "1(b)", "1c"]);
    expect(labels(updateQuestion(typed, parentId, { label: "3" }))).toEqual(["3", "1a", "1(b)", "1c"]);
  });

  it("closes the gap a deleted part leaves, and a new part takes the first free suggestion", () => {
    const { doc, parentId } = paper();
    const withoutB = deleteQuestion(doc, childrenOf(doc.questions, parentId)[1]!.id);
    expect(labels(withoutB)).toEqual(["1", "1a", "1b"]);
    const typed = updateQuestion(doc, childrenOf(doc.questions, parentId)[2]!.id, { label: "1d" });
    expect(addPart(typed, parentId).part.label).toBe("1e");
    // A move keeps the labels: the teacher moved that part, by its name.
    const moved = moveQuestion(doc, childrenOf(doc.questions, parentId)[0]!.id, 1);
    expect(labels(moved)).toEqual(["1", "1b", "1a", "1c"]);
  });

  it("keeps parts' labels distinct and in suggestion order through any adds, deletes and parent renames", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant({ kind: "add" as const }), fc.record({ kind: fc.constant("delete" as const), at: fc.nat(5) }), fc.record({ kind: fc.constant("rename" as const), to: fc.stringMatching(/^[1-9][0-9]?$/) })), { maxLength: 15 }),
        (steps) => {
          const { doc: start, question } = withQuestion();
          let doc = start;
          for (const step of steps) {
            const parts = childrenOf(doc.questions, question.id);
            if (step.kind === "add") doc = addPart(doc, question.id).doc;
            else if (step.kind === "delete" && parts.length > 0) doc = deleteQuestion(doc, parts[step.at % parts.length]!.id);
            else if (step.kind === "rename") doc = updateQuestion(doc, question.id, { label: step.to });
          }
          const parent = doc.questions.find((q) => q.id === question.id)!;
          expect(childrenOf(doc.questions, question.id).map((q) => q.label)).toEqual(childrenOf(doc.questions, question.id).map((_, index) => suggestedPartLabel(parent.label, 0, index)));
        },
      ),
    );
  });
});
