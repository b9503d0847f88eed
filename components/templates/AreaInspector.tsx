"use client";

import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import type { AreaKind, EditorArea, EditorQuestion } from "./editor-state";

interface AreaInspectorProps {
  area: EditorArea;
  questions: EditorQuestion[];
  readOnly: boolean;
  /** A touch screen: moving and resizing by finger needs "Draw by touch" on. */
  touchCapable: boolean;
  onChange: (patch: Partial<EditorArea>) => void;
  onDelete: () => void;
}

/** The selected area: which question it belongs to, response or context, delete. */
export function AreaInspector({ area, questions, readOnly, touchCapable, onChange, onDelete }: AreaInspectorProps) {
  return (
    <section className="inspector inspector--area" aria-labelledby="area-inspector-heading">
      <h2 id="area-inspector-heading">Selected area · page {area.page}</h2>
      <SelectField
        label="Question"
        value={area.question_id}
        disabled={readOnly}
        options={questions.map((q) => ({ value: q.id, label: q.label }))}
        onChange={(e) => onChange({ question_id: e.currentTarget.value })}
      />
      <fieldset className="segmented" disabled={readOnly}>
        <legend className="field__label">Kind</legend>
        {(["response", "context"] as AreaKind[]).map((kind) => (
          <label key={kind} className="segmented__option">
            <input type="radio" name={`kind-${area.id}`} value={kind} checked={area.kind === kind} onChange={() => onChange({ kind })} />
            {kind === "response" ? "Response (marked)" : "Context (shown only)"}
          </label>
        ))}
      </fieldset>
      <p className="field__hint">
        {touchCapable
          ? "To move or resize it by touch, turn on Draw by touch, then drag it or a handle. A mouse drags it at any time."
          : "Drag to move, drag a handle to resize; arrow keys nudge it (Shift: further); Delete removes it."}
      </p>
      <div className="inspector__footer">
        <Button variant="danger-quiet" size="small" disabled={readOnly} onClick={onDelete}>
          Delete area
        </Button>
      </div>
    </section>
  );
}
