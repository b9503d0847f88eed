import { describe, expect, it } from "vitest";
import { type Focus, type KeyPress, ariaKeyShortcuts, shortcutFor, shortcuts, shownKeys } from "../components/marking/keyboard-map";

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...extra });

describe("the marking keyboard map", () => {
  it("lists the keys on the sheet as before", () => {
    expect(shortcuts.map((shortcut) => shownKeys(shortcut.keys))).toEqual(["0–9 .", "0", "0–9", "Enter", "j or ↓", "k or ↑", "]", "[", "c", "Esc", "?"]);
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
      expect(shortcutFor(press("x"), focus)).toBeNull();
    }
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
