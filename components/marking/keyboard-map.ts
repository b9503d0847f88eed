/*
 * The marking screen's keys, in one table: the document's key handler looks actions up in it and the
 * shortcut sheet lists it, so the sheet always shows the keys that work.
 */

export type MarkingAction =
  | "typeMark"
  | "applyItem"
  | "noMarks"
  | "confirm"
  | "nextQuestion"
  | "previousQuestion"
  | "nextScript"
  | "previousScript"
  | "writeComment"
  | "backToMark"
  | "showShortcuts"
  | "annotateTick"
  | "annotateCross"
  | "annotateText"
  | "annotateHighlight"
  | "annotateStamp"
  | "toAnnotations"
  | "undoAnnotation"
  | "redoAnnotation"
  | "undoAutomaticMark";

/**
 * Where the key was pressed: the mark input, the comment box, another text field, a button or link,
 * a radio button, or anywhere else on the page (the scan, the mark scheme, the body).
 */
export type Focus = "mark" | "comment" | "other-text" | "button" | "radio" | "page";

export interface Shortcut {
  action: MarkingAction;
  /** `KeyboardEvent.key` values. */
  keys: readonly string[];
  description: string;
  /** Where it works: in the comment box only the keys meant for it do; digits anywhere but the mark (which takes them itself). */
  where: readonly ("mark" | "comment" | "page")[];
  /** Only on a question with rubric items (true) or without (false); on every question when absent. */
  rubric?: boolean;
  /** Only on a rubric question with a tenth item (true), which takes the key 0, or without one (false). */
  tenthItem?: boolean;
  /** Pressed with Ctrl or ⌘ (its keys then say whether Shift is held: "Z" is Shift+Z). */
  modifier?: true;
  /** How the sheet writes the keys, when not as `shownKeys` would. */
  shown?: string;
}

/** What the keys act on: whether the current question's mark is made of rubric items. */
export interface KeyContext {
  rubric: boolean;
  /** The question's rubric has a tenth item, whose key is 0. */
  tenthItem?: boolean;
}

const digits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

export const shortcuts: readonly Shortcut[] = [
  { action: "typeMark", keys: [...digits, "."], description: "Type the mark", where: ["page"], rubric: false },
  {
    // Before applyItem, which also lists 0: with fewer than ten items no item has it.
    action: "noMarks",
    keys: ["0"],
    description: "On a question with a rubric of fewer than ten items: no marks, a 0 given on purpose (any item applied is removed)",
    where: ["mark", "page"],
    rubric: true,
    tenthItem: false,
  },
  {
    action: "applyItem",
    keys: digits,
    description: "On a question with a rubric: apply item 1 to 9, and 0 for the tenth; pressed again, remove it (shown on the item and said). The mark is their sum",
    where: ["mark", "page"],
    rubric: true,
  },
  {
    action: "confirm",
    keys: ["Enter"],
    description:
      "Confirm the mark and move on: by student to the next question (then the next script); by question to the next script (then the next question). A question with no mark yet stays empty: Enter records no 0 by itself",
    where: ["mark", "comment", "page"],
  },
  { action: "nextQuestion", keys: ["j", "ArrowDown"], description: "Next question", where: ["mark", "page"] },
  { action: "previousQuestion", keys: ["k", "ArrowUp"], description: "Previous question", where: ["mark", "page"] },
  { action: "nextScript", keys: ["]"], description: "Next student's script", where: ["mark", "page"] },
  { action: "previousScript", keys: ["["], description: "Previous student's script", where: ["mark", "page"] },
  { action: "writeComment", keys: ["c"], description: "Write a comment (Enter in the comment confirms, Shift+Enter adds a line)", where: ["mark", "page"] },
  { action: "backToMark", keys: ["Escape"], description: "Back to the mark", where: ["comment"] },
  { action: "showShortcuts", keys: ["?"], description: "Show this sheet", where: ["mark", "page"] },
  // Annotations (AnnotationOverlay.tsx, use-annotation-editor.ts): placed at the current question's answer, then moved with the arrows; Enter or Esc goes back to the mark.
  { action: "annotateTick", keys: ["t"], description: "Put a tick at the current question's answer (then the arrows move it; Enter or Esc goes back to the mark)", where: ["mark", "page"] },
  { action: "annotateCross", keys: ["x"], description: "Put a cross at the current question's answer", where: ["mark", "page"] },
  { action: "annotateText", keys: ["n"], description: "Write a note on the scan at the current question's answer (Enter places it, Esc drops it)", where: ["mark", "page"] },
  { action: "annotateHighlight", keys: ["h"], description: "Highlight the current question's answer", where: ["mark", "page"] },
  { action: "annotateStamp", keys: ["s"], description: "Stamp one of the question's rubric items at its answer (choose it from the list)", where: ["mark", "page"] },
  {
    action: "toAnnotations",
    keys: ["a"],
    description: "Go to the annotations of this page (Tab to the next; arrows move one, Shift+arrows by a larger step; Delete removes it; Enter edits a note)",
    where: ["mark", "page"],
  },
  {
    action: "undoAutomaticMark",
    keys: ["u"],
    description: "Undo a mark given automatically (read from the ticks, or a blank given 0): the question is left unmarked, and a re-read of the page does not give it again",
    where: ["mark", "page"],
  },
  { action: "undoAnnotation", keys: ["z"], modifier: true, shown: "Ctrl+Z or ⌘Z", description: "Undo the last annotation change (outside the mark and comment boxes)", where: ["page"] },
  { action: "redoAnnotation", keys: ["Z", "y"], modifier: true, shown: "Ctrl+Shift+Z, ⌘⇧Z or Ctrl+Y", description: "Redo the annotation change undone", where: ["page"] },
];

const keyNames: Record<string, string> = { ArrowDown: "↓", ArrowUp: "↑", Escape: "Esc" };

/** How the sheet writes a shortcut's keys: "j or ↓"; the ten digits as a range, "0–9 .". */
export function shownKeys(keys: readonly string[]): string {
  const named = (key: string) => keyNames[key] ?? key;
  if (digits.every((digit) => keys.includes(digit))) return ["0–9", ...keys.filter((key) => !digits.includes(key)).map(named)].join(" ");
  return keys.map(named).join(" or ");
}

/** The `aria-keyshortcuts` value of the control that does `action`. */
export function ariaKeyShortcuts(action: MarkingAction): string {
  const shortcut = shortcuts.find((entry) => entry.action === action)!;
  if (!shortcut.modifier) return shortcut.keys.join(" ");
  const chord = (key: string) => (key !== key.toLowerCase() ? `Shift+${key}` : key.toUpperCase());
  return shortcut.keys.flatMap((key) => [`Control+${chord(key)}`, `Meta+${chord(key)}`]).join(" ");
}

export interface KeyPress {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** Whether a shortcut works on the current question. */
const appliesTo = (shortcut: Shortcut, context: KeyContext) =>
  (shortcut.rubric === undefined || shortcut.rubric === context.rubric) && (shortcut.tenthItem === undefined || shortcut.tenthItem === Boolean(context.tenthItem));

/**
 * The action a key press asks for where it was pressed, or null when it is left to the browser: with
 * Alt, or Ctrl or ⌘ but for undo and redo of annotations on the page; in another text field; Shift+Enter in the comment (a new line); Enter on a button or
 * link (it activates it); arrows on a radio button (they choose the marking order). On a question with
 * rubric items the digits apply items, in the mark too (it shows their sum and takes no typing), and 0
 * gives no marks while no tenth item takes it.
 */
export function shortcutFor(press: KeyPress, focus: Focus, context: KeyContext = { rubric: false }): MarkingAction | null {
  if (press.altKey || focus === "other-text") return null;
  if (press.ctrlKey || press.metaKey) {
    // Only the shortcuts said with Ctrl or ⌘ (undo, redo), on the page; Shift writes their key in capitals.
    const key = press.key.length === 1 ? (press.shiftKey ? press.key.toUpperCase() : press.key.toLowerCase()) : press.key;
    const area = focus === "mark" || focus === "comment" ? focus : "page";
    return shortcuts.find((shortcut) => shortcut.modifier && shortcut.where.includes(area) && shortcut.keys.includes(key))?.action ?? null;
  }
  if (focus === "comment" && press.key === "Enter" && press.shiftKey) return null;
  if (focus === "button" && press.key === "Enter") return null;
  if (focus === "radio" && press.key.startsWith("Arrow")) return null;
  const area = focus === "mark" || focus === "comment" ? focus : "page";
  return (
    shortcuts.find((shortcut) => !shortcut.modifier && shortcut.where.includes(area) && shortcut.keys.includes(press.key) && appliesTo(shortcut, context))?.action ?? null
  );
}
