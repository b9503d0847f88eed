"use client";

import { useEffect, useId, useRef } from "react";
import { Button } from "@/components/ui/Button";
import { ariaKeyShortcuts } from "./keyboard-map";
import type { Tool } from "./AnnotationOverlay";
import type { AnnotationEditor } from "./use-annotation-editor";

const tools: { tool: Tool; label: string; symbol: string; key?: Parameters<typeof ariaKeyShortcuts>[0] }[] = [
  { tool: "select", label: "Select", symbol: "↖" },
  { tool: "tick", label: "Tick", symbol: "✓", key: "annotateTick" },
  { tool: "cross", label: "Cross", symbol: "✗", key: "annotateCross" },
  { tool: "text", label: "Note", symbol: "T", key: "annotateText" },
  { tool: "pen", label: "Pen", symbol: "✎" },
  { tool: "highlight", label: "Highlight", symbol: "▮", key: "annotateHighlight" },
];

/**
 * The annotation tools above the scan: the tool in hand (a click on the page uses it; the keys put a
 * shape at the current question's answer instead), the rubric items to stamp, undo and redo, and how
 * the annotations stand: saving, not yet saved (counted), or not saved with the server's reason.
 */
export type StampMenu = null | "pointer" | "keyboard";

export function AnnotationToolbar({ editor, stampMenu, onStampMenu }: { editor: AnnotationEditor; stampMenu: StampMenu; onStampMenu: (menu: StampMenu) => void }) {
  const menuId = useId();
  const menu = useRef<HTMLDivElement>(null);
  const stampOpen = stampMenu !== null;
  // Opened from the keyboard (the key s, or Enter on the button): its first item takes focus.
  useEffect(() => {
    if (stampMenu === "keyboard") menu.current?.querySelector("button")?.focus();
  }, [stampMenu]);
  if (editor.readOnly) return null;
  const stampable = editor.rubricItems.length > 0;
  return (
    <div className="annotation-toolbar" role="toolbar" aria-label="Annotation tools" data-covers-scroll-top="">
      <div className="annotation-toolbar__tools">
        {tools.map(({ tool, label, symbol, key }) => (
          <Button
            key={tool}
            variant="secondary"
            size="small"
            className={`annotation-toolbar__tool${editor.tool === tool ? " annotation-toolbar__tool--on" : ""}`}
            aria-pressed={editor.tool === tool}
            aria-keyshortcuts={key ? ariaKeyShortcuts(key) : undefined}
            title={key ? `${label} (the key ${ariaKeyShortcuts(key)} puts one at the question's answer)` : label}
            onClick={() => editor.setTool(tool)}
          >
            <span aria-hidden="true">{symbol}</span> {label}
          </Button>
        ))}
        <div className="annotation-toolbar__stamp">
          <Button
            variant="secondary"
            size="small"
            className={`annotation-toolbar__tool${editor.tool === "stamp" ? " annotation-toolbar__tool--on" : ""}`}
            aria-expanded={stampOpen}
            aria-controls={menuId}
            aria-keyshortcuts={ariaKeyShortcuts("annotateStamp")}
            disabled={!stampable}
            title={stampable ? "Stamp a rubric item of this question" : "This question has no rubric items to stamp"}
            onClick={(event) => onStampMenu(stampOpen ? null : event.detail === 0 ? "keyboard" : "pointer")}
          >
            Stamp{editor.tool === "stamp" && editor.stampItem ? `: ${shortLabel(editor.stampItem.text)}` : ""} ▾
          </Button>
          {stampOpen && stampable ? (
            <div
              ref={menu}
              id={menuId}
              className="annotation-toolbar__menu"
              onKeyDown={(event) => {
                if (event.key === "Escape") {
                  event.preventDefault();
                  onStampMenu(null);
                  editor.overlay.done();
                }
              }}
            >
              <p className="annotation-toolbar__menu-hint">Choose with Enter to stamp it at the answer; click one, then the page, to stamp it there.</p>
              <ul>
                {editor.rubricItems.map((item) => (
                  <li key={item.id}>
                    <button
                      type="button"
                      className="annotation-toolbar__item"
                      onClick={(event) => {
                        onStampMenu(null);
                        // From the keyboard (no pointer: detail 0) it goes at the answer at once; a click arms the stamp.
                        if (event.detail === 0) editor.keys.stamp(item);
                        else editor.armStamp(item);
                      }}
                    >
                      {item.text}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
        <Button variant="secondary" size="small" onClick={editor.keys.undo} disabled={!editor.canUndo} aria-keyshortcuts={ariaKeyShortcuts("undoAnnotation")} title="Undo (Ctrl+Z or ⌘Z)">
          Undo
        </Button>
        <Button variant="secondary" size="small" onClick={editor.keys.redo} disabled={!editor.canRedo} aria-keyshortcuts={ariaKeyShortcuts("redoAnnotation")} title="Redo (Ctrl+Shift+Z, ⌘⇧Z or Ctrl+Y)">
          Redo
        </Button>
        <AnnotationSaveState editor={editor} />
      </div>
    </div>
  );
}

const shortLabel = (text: string) => (text.length > 24 ? `${text.slice(0, 23)}…` : text);

/** How the annotations stand, counted: what the marks' indicator says of a mark. */
function AnnotationSaveState({ editor }: { editor: AnnotationEditor }) {
  const failure = editor.failures[0];
  if (failure) {
    return (
      <span className="save-indicator save-indicator--error annotation-toolbar__state" role="alert">
        {editor.unsaved === 1 ? "An annotation is" : `${editor.unsaved} annotations are`} not saved: {failure.message}
        {failure.retryable ? (
          <>
            {" "}
            <Button variant="secondary" size="small" onClick={editor.retryAll}>
              Retry
            </Button>
          </>
        ) : null}
      </span>
    );
  }
  const text = editor.message ?? (editor.saving ? "Saving annotations…" : editor.unsaved > 0 ? `${editor.unsaved} annotation${editor.unsaved === 1 ? "" : "s"} not saved yet` : editor.shapes ? "Annotations saved" : "");
  return (
    <span className={`save-indicator annotation-toolbar__state save-indicator--${editor.unsaved > 0 ? "dirty" : "saved"}`} role="status" aria-live="polite">
      {text}
    </span>
  );
}
