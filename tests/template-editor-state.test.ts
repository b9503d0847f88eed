import { describe, expect, it } from "vitest";
import { describeChanges } from "../components/templates/editor-drafts";
import { type EditorDocument, type EditorQuestion, addPart, firstMaxMarksError, maxMarksEdit, newQuestion, saveBody, typedMaxMarks, updateQuestion } from "../components/templates/editor-state";

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
      expect(edited.questions[0]!.max_marks, typed).toBe(1);
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
