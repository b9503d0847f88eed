"use client";

import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { TICK_BOX_LABELS } from "@/lib/rules/tick-boxes";
import { type AreaKind, type EditorArea, type EditorQuestion, type TickBox, isMultipleChoice } from "./editor-state";

/** The tick boxes of a Multiple choice area: found on the paper, drawn, relabelled, removed. */
interface TickBoxTools {
  /** The box selected on the paper (its index), if any. */
  selectedIndex: number | null;
  /** Why Find boxes cannot run (no paper PDF), or null. */
  findUnavailable: string | null;
  finding: boolean;
  findProblem: string | null;
  drawing: boolean;
  onFind: () => void;
  onAdd: () => void;
  onDraw: (on: boolean) => void;
  onSelect: (index: number) => void;
  onRelabel: (index: number, label: string) => void;
  onReshape: (index: number, shape: TickBox["shape"]) => void;
  onRemove: (index: number) => void;
}

interface AreaInspectorProps {
  area: EditorArea;
  questions: EditorQuestion[];
  readOnly: boolean;
  /** A touch screen: moving and resizing by finger needs "Draw by touch" on. */
  touchCapable: boolean;
  onChange: (patch: Partial<EditorArea>) => void;
  onDelete: () => void;
  tickBoxes: TickBoxTools;
}

/** The selected area: which question it belongs to, response or context, delete. */
export function AreaInspector({ area, questions, readOnly, touchCapable, onChange, onDelete, tickBoxes }: AreaInspectorProps) {
  const question = questions.find((q) => q.id === area.question_id);
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
      {isMultipleChoice(question) && area.kind === "response" ? <TickBoxList area={area} readOnly={readOnly} tools={tickBoxes} /> : null}
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

function TickBoxList({ area, readOnly, tools }: { area: EditorArea; readOnly: boolean; tools: TickBoxTools }) {
  const boxes = area.tick_boxes ?? [];
  return (
    <fieldset className="tick-boxes" disabled={readOnly}>
      <legend className="field__label">Tick boxes</legend>
      <p className="field__hint">
        {boxes.length === 0
          ? "Find the boxes printed in this area, or draw them on the paper."
          : `${boxes.length} box${boxes.length === 1 ? "" : "es"}: drag one on the paper to move it, its corners to resize it; arrow keys nudge it, Delete removes it.`}
      </p>
      <div className="cluster">
        <Button size="small" variant="secondary" disabled={tools.finding || tools.findUnavailable !== null} onClick={tools.onFind}>
          {tools.finding ? "Finding boxes…" : "Find boxes"}
        </Button>
        <Button size="small" variant="secondary" aria-pressed={tools.drawing} onClick={() => tools.onDraw(!tools.drawing)}>
          Draw a box
        </Button>
        <Button size="small" variant="secondary" onClick={tools.onAdd}>
          Add a box
        </Button>
      </div>
      {tools.findUnavailable ? <p className="field__hint">{tools.findUnavailable}</p> : null}
      {tools.findProblem ? (
        <p className="field__error" role="alert">
          {tools.findProblem}
        </p>
      ) : null}
      {boxes.length ? (
        <ul className="tick-boxes__list" aria-label="Tick boxes of this area">
          {boxes.map((box, index) => (
            <li key={index} className={`tick-boxes__row${tools.selectedIndex === index ? " tick-boxes__row--selected" : ""}`}>
              <SelectField
                label={`Box ${index + 1} letter`}
                value={box.label}
                options={TICK_BOX_LABELS.map((label) => ({ value: label, label }))}
                onChange={(e) => tools.onRelabel(index, e.currentTarget.value)}
                onFocus={() => tools.onSelect(index)}
              />
              <SelectField
                label={`Box ${index + 1} shape`}
                value={box.shape}
                options={[
                  { value: "square", label: "Square" },
                  { value: "round", label: "Round" },
                ]}
                onChange={(e) => tools.onReshape(index, e.currentTarget.value as TickBox["shape"])}
              />
              <Button variant="danger-quiet" size="small" onClick={() => tools.onRemove(index)}>
                Remove box {box.label}
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}
