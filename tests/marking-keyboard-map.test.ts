import { describe, expect, it } from "vitest";
import { type Focus, type KeyPress, ariaKeyShortcuts, shortcutFor, shortcuts, shownKeys } from "../components/marking/keyboard-map";

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...extra });

describe("the marking keyboard map", () => {
  it("lists the keys on the sheet as before", () => {
    expect(shortcuts.map((shortcut) => shortcut.shown ?? shownKeys(shortcut.keys))).toEqual([
      "0–9 .",
      "0",
      "0–9",
      "Enter",
      "j or ↓",
      "k or ↑",
      "]",
      "[",
      "c",
      "Esc",
      "?",
      "t",
      "x",
      "n",
      "h",
      "s",
      "a",
      "u",
      "Ctrl+Z or ⌘Z",
      "Ctrl+Shift+Z, ⌘⇧Z or Ctrl+Y",
    ]);
  });

  it("gives every action one row and every key one action where it works", () => {
    expect(new Set(shortcuts.map((s) => s.action)).size).toBe(shortcuts.length);
    for (const rubric of [true, false]) {
      for (const tenthItem of [true, false]) {
        for (const area of ["mark", "comment", "page"] as const) {
          const keys = shortcuts
            .filter((s) => s.where.includes(area) && (s.rubric === undefined || s.rubric === rubric) && (s.tenthItem === undefined || s.tenthItem === tenthItem))
            .flatMap((s) => s.keys);
          // 0 is listed by "no marks" and by the tenth item: which one depends on the question's items.
          const duplicates = keys.filter((key, index) => keys.indexOf(key) !== index);
          expect(duplicates).toEqual(rubric && !tenthItem && area !== "comment" ? ["0"] : []);
        }
      }
    }
  });

  it("names the buttons' keys", () => {
    expect(ariaKeyShortcuts("previousScript")).toBe("[");
    expect(ariaKeyShortcuts("nextScript")).toBe("]");
    expect(ariaKeyShortcuts("showShortcuts")).toBe("?");
    expect(ariaKeyShortcuts("confirm")).toBe("Enter");
  });

  it("finds each listed key's action in the mark input and on the page", () => {
    for (const focus of ["mark", "page"] as const) {
      expect(shortcutFor(press("Enter"), focus)).toBe("confirm");
      expect(shortcutFor(press("Enter", { shiftKey: true }), focus)).toBe("confirm");
      expect(shortcutFor(press("j"), focus)).toBe("nextQuestion");
      expect(shortcutFor(press("ArrowDown"), focus)).toBe("nextQuestion");
      expect(shortcutFor(press("k"), focus)).toBe("previousQuestion");
      expect(shortcutFor(press("ArrowUp"), focus)).toBe("previousQuestion");
      expect(shortcutFor(press("]"), focus)).toBe("nextScript");
      expect(shortcutFor(press("["), focus)).toBe("previousScript");
      expect(shortcutFor(press("c"), focus)).toBe("writeComment");
      expect(shortcutFor(press("?", { shiftKey: true }), focus)).toBe("showShortcuts");
      expect(shortcutFor(press("Escape"), focus)).toBeNull();
      expect(shortcutFor(press("q"), focus)).toBeNull();
      // Annotations: put at the current question's answer.
      expect(shortcutFor(press("t"), focus)).toBe("annotateTick");
      expect(shortcutFor(press("x"), focus)).toBe("annotateCross");
      expect(shortcutFor(press("n"), focus)).toBe("annotateText");
      expect(shortcutFor(press("h"), focus)).toBe("annotateHighlight");
      expect(shortcutFor(press("s"), focus)).toBe("annotateStamp");
      expect(shortcutFor(press("a"), focus)).toBe("toAnnotations");
    }
  });

  it("undoes and redoes annotations with Ctrl or ⌘ on the page (a shape, the scan), never in the mark or the comment, whose own undo stays", () => {
    for (const modifier of ["ctrlKey", "metaKey"] as const) {
      for (const focus of ["page", "button"] as const) {
        expect(shortcutFor(press("z", { [modifier]: true }), focus)).toBe("undoAnnotation");
        expect(shortcutFor(press("Z", { [modifier]: true, shiftKey: true }), focus)).toBe("redoAnnotation");
        // Some layouts report the lower case with Shift held.
        expect(shortcutFor(press("z", { [modifier]: true, shiftKey: true }), focus)).toBe("redoAnnotation");
        expect(shortcutFor(press("y", { [modifier]: true }), focus)).toBe("redoAnnotation");
      }
      for (const focus of ["mark", "comment", "other-text"] as const) expect(shortcutFor(press("z", { [modifier]: true }), focus)).toBeNull();
      expect(shortcutFor(press("z", { [modifier]: true, altKey: true }), "page")).toBeNull();
    }
    expect(ariaKeyShortcuts("undoAnnotation")).toBe("Control+Z Meta+Z");
    expect(ariaKeyShortcuts("redoAnnotation")).toBe("Control+Shift+Z Meta+Shift+Z Control+Y Meta+Y");
  });

  it("keeps the annotation keys out of the comment box, where they are letters", () => {
    for (const key of ["t", "x", "n", "h", "s", "a"]) expect(shortcutFor(press(key), "comment")).toBeNull();
  });

  it("sends digits typed outside the mark to the mark; in the mark the input takes them", () => {
    expect(shortcutFor(press("7"), "page")).toBe("typeMark");
    expect(shortcutFor(press("."), "button")).toBe("typeMark");
    expect(shortcutFor(press("7"), "mark")).toBeNull();
  });

  it("on a question with a rubric, sends digits to the items, from the mark too, and ignores the decimal point", () => {
    const rubric = { rubric: true };
    for (const focus of ["mark", "page", "button"] as const) {
      expect(shortcutFor(press("1"), focus, rubric)).toBe("applyItem");
      // 0: no marks, unless a tenth item takes it.
      expect(shortcutFor(press("0"), focus, rubric)).toBe("noMarks");
      expect(shortcutFor(press("0"), focus, { rubric: true, tenthItem: true })).toBe("applyItem");
      expect(shortcutFor(press("0"), focus, { rubric: false })).toBe(focus === "mark" ? null : "typeMark");
      expect(shortcutFor(press("."), focus, rubric)).toBeNull();
      expect(shortcutFor(press("Enter"), "mark", rubric)).toBe("confirm");
      expect(shortcutFor(press("j"), focus, rubric)).toBe("nextQuestion");
    }
    expect(shortcutFor(press("1"), "comment", rubric)).toBeNull();
    expect(shortcutFor(press("1"), "other-text", rubric)).toBeNull();
  });

  it("in the comment, knows only Enter (Shift+Enter is a new line) and Esc", () => {
    expect(shortcutFor(press("Enter"), "comment")).toBe("confirm");
    expect(shortcutFor(press("Enter", { shiftKey: true }), "comment")).toBeNull();
    expect(shortcutFor(press("Escape"), "comment")).toBe("backToMark");
    for (const key of ["j", "k", "c", "[", "]", "?", "1", "ArrowDown"]) expect(shortcutFor(press(key), "comment")).toBeNull();
  });

  it("leaves to the browser: modifiers, other text fields, Enter on a button or link, arrows on a radio", () => {
    for (const modifier of ["ctrlKey", "metaKey", "altKey"] as const) expect(shortcutFor(press("j", { [modifier]: true }), "page")).toBeNull();
    for (const key of ["Enter", "j", "1", "Escape"]) expect(shortcutFor(press(key), "other-text" satisfies Focus)).toBeNull();
    expect(shortcutFor(press("Enter"), "button")).toBeNull();
    expect(shortcutFor(press("j"), "button")).toBe("nextQuestion");
    expect(shortcutFor(press("ArrowDown"), "radio")).toBeNull();
    expect(shortcutFor(press("Enter"), "radio")).toBe("confirm");
    expect(shortcutFor(press("j"), "radio")).toBe("nextQuestion");
  });
});
