"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { TextField } from "@/components/ui/Field";
import { AlertIcon } from "@/components/ui/icons";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import { useTRPC } from "@/components/trpc/client";
import {
  type DraftField,
  type FieldErrors,
  type ItemDraft,
  type RubricItemView,
  bodyOfDraft,
  changesOf,
  draftOf,
  emptyDraft,
  formatPoints,
  itemKey,
  itemsOfQuestion,
  movePosition,
  moved,
  overMaximumWarning,
  placeError,
  rescoredSentence,
  rubricOverMaximum,
} from "./rubric-items";
import "./rubric.css";

export interface RubricEditorProps {
  /** The template of the question: its `exam.templates.get` query is refreshed after every change. */
  templateId: string;
  /** A leaf question saved on the server (a container, or a question only in an unsaved draft, takes no items). */
  questionId: string;
  /** The question's label ("3a"), for names read by screen readers and the confirmation. */
  questionLabel: string;
  /** The rubric items: the question's, or all the template's (`rubric_items` of `exam.templates.get`); any order. */
  items: readonly RubricItemView[];
  /** The signed-in user owns the template and may change its rubric; otherwise it is shown read-only. */
  canEdit: boolean;
  /** Who may change it, said on the read-only line ("Only Ann Lee can change…"); "the template's owner" when left out. */
  ownerName?: string;
  /** How many marks apply each item, when the caller knows: the delete confirmation then gives the number. */
  markCounts?: ReadonlyMap<string, number>;
  /** Level of the "Rubric" heading (3 under the template editor's question heading). */
  headingLevel?: 2 | 3 | 4;
  /** The question's maximum marks, when known: items adding up to more are warned about. */
  maxMarks?: number | null;
}

/** What one control of an item is, to give the focus back to it once the list is refreshed. */
type Control = "edit" | "up" | "down" | "add";

/**
 * A question's rubric: its items in marking order with the key each gets on the marking screen (1–9,
 * then 0), their points, specification point and saved comment. The owner adds, edits in place,
 * reorders and deletes items; each change is saved at once (the exam.rubric mutations, no Save button)
 * and the template query is refreshed. A change of points, or a deletion, re-scores the marks that used
 * the item; how many is announced. Everyone else reads it.
 */
export function RubricEditor({ templateId, questionId, questionLabel, items, canEdit, ownerName, markCounts, headingLevel = 3, maxMarks = null }: RubricEditorProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const headingId = useId();
  const Heading = `h${headingLevel}` as const;
  const saved = itemsOfQuestion(items, questionId);
  /** The order shown while a move is on its way (the server's list replaces it). */
  const [pendingOrder, setPendingOrder] = useState<string[] | null>(null);
  const ordered = pendingOrder ? pendingOrder.map((id) => saved.find((item) => item.id === id)).filter((item) => item !== undefined) : saved;
  const [editingId, setEditingId] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [toDelete, setToDelete] = useState<RubricItemView | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const section = useRef<HTMLElement>(null);
  const [focusWanted, setFocusWanted] = useState<string | null>(null);

  const create = useMutation(trpc.exam.rubric.create.mutationOptions());
  const edit = useMutation(trpc.exam.rubric.edit.mutationOptions());
  const remove = useMutation(trpc.exam.rubric.delete.mutationOptions());
  const busy = create.isPending || edit.isPending || remove.isPending || pendingOrder !== null;

  // The focus goes back where the keyboard was once the refreshed list has the control.
  useEffect(() => {
    if (!focusWanted) return;
    const element = section.current?.querySelector<HTMLElement>(`[data-control="${focusWanted}"]`);
    if (!element) return;
    element.focus();
    setFocusWanted(null);
  }, [focusWanted, items, editingId, adding, pendingOrder]);

  /** Marks a control so that the focus can be given back to it (`focusWanted`). */
  const control = (id: string, kind: Control) => ({ "data-control": `${id}:${kind}` });

  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.exam.templates.get.queryKey({ template_id: templateId }) });

  async function add(draft: ItemDraft): Promise<string | null> {
    const parsed = bodyOfDraft(draft);
    if ("errors" in parsed) return null;
    try {
      const item = await create.mutateAsync({ question_id: questionId, body: parsed.body });
      await refresh();
      const key = itemKey(saved.length);
      setAnnouncement(`Added “${item.text}” (${formatPoints(item.points)})${key ? `, key ${key}` : ""}.`);
      return null;
    } catch (error) {
      return errorMessage(error);
    }
  }

  async function save(item: RubricItemView, draft: ItemDraft): Promise<string | null> {
    const parsed = bodyOfDraft(draft);
    if ("errors" in parsed) return null;
    const changes = changesOf(item, parsed.body);
    if (Object.keys(changes).length === 0) {
      closeEdit(item.id);
      return null;
    }
    try {
      const result = await edit.mutateAsync({ item_id: item.id, body: changes });
      await refresh();
      closeEdit(item.id);
      setAnnouncement(
        changes.points === undefined
          ? `Saved “${result.item.text}”.`
          : `“${result.item.text}” is now ${formatPoints(result.item.points)}. ${rescoredSentence(result.marks_rescored)}`,
      );
      return null;
    } catch (error) {
      return errorMessage(error);
    }
  }

  function closeEdit(id: string) {
    setEditingId(null);
    setFocusWanted(`${id}:edit`);
  }

  async function move(index: number, direction: -1 | 1) {
    const item = ordered[index];
    const position = movePosition(ordered, index, direction);
    if (busy || !item || position === null) return;
    setListError(null);
    const next = moved(ordered, index, direction);
    setPendingOrder(next.map((it) => it.id));
    const place = index + direction;
    // The same arrow again, unless the item reached that end of the list (that arrow is then disabled).
    const atEnd = direction === -1 ? place === 0 : place === next.length - 1;
    const arrow: Control = (direction === -1) !== atEnd ? "up" : "down";
    setFocusWanted(`${item.id}:${arrow}`);
    try {
      await edit.mutateAsync({ item_id: item.id, body: { position } });
      await refresh();
      setAnnouncement(`Moved “${item.text}” to place ${place + 1} of ${next.length}${itemKey(place) ? `, key ${itemKey(place)}` : ""}.`);
    } catch (error) {
      setListError(`“${item.text}” was not moved: ${errorMessage(error)}`);
    } finally {
      setPendingOrder(null);
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    const index = ordered.findIndex((item) => item.id === toDelete.id);
    const neighbour = ordered[index + 1] ?? ordered[index - 1];
    setDeleteError(null);
    try {
      const result = await remove.mutateAsync({ item_id: toDelete.id });
      await refresh();
      setAnnouncement(`Deleted “${toDelete.text}”. ${rescoredSentence(result.marks_rescored)}`);
      setToDelete(null);
      setFocusWanted(neighbour ? `${neighbour.id}:edit` : "new:add");
    } catch (error) {
      setDeleteError(errorMessage(error));
    }
  }

  const uses = toDelete ? markCounts?.get(toDelete.id) : undefined;
  const over = rubricOverMaximum(saved, maxMarks);

  return (
    <section ref={section} className="rubric" aria-labelledby={headingId}>
      <div className="rubric__header">
        <Heading id={headingId} className="rubric__title">
          Rubric
        </Heading>
        {ordered.length ? (
          <span className="rubric__count">
            {ordered.length} item{ordered.length === 1 ? "" : "s"}
          </span>
        ) : null}
      </div>
      {ordered.length ? (
        <p className="rubric__hint">Markers press an item’s key to apply it; the mark is the sum of the items applied, from 0 to the maximum.</p>
      ) : (
        <p className="rubric__hint">
          {canEdit
            ? "No rubric items yet. Each item adds or takes off points when a marker applies it, with a key on the marking screen."
            : "This question has no rubric items."}
        </p>
      )}
      {canEdit ? null : <p className="rubric__owner-note">Only {ownerName ?? "the template’s owner"} can change this rubric.</p>}
      {over ? (
        // Not a live region of its own: the edit that brings it about is announced by the editor's status line.
        <Status tone="warning" role="none">
          {overMaximumWarning(over, questionLabel)}
        </Status>
      ) : null}
      {listError ? <Status tone="error">{listError}</Status> : null}
      {ordered.length ? (
        <ol className="rubric__list" aria-label={`Rubric items of question ${questionLabel}`}>
          {ordered.map((item, index) => {
            const key = itemKey(index);
            if (editingId === item.id) {
              return (
                <li key={item.id} className="rubric-item rubric-item--editing">
                  <ItemForm
                    label={`Edit “${item.text}”`}
                    initial={draftOf(item)}
                    submitLabel="Save item"
                    busyLabel="Saving…"
                    busy={edit.isPending}
                    pointsNote="A change of points re-scores the marks that use this item."
                    autoFocus
                    onSubmit={(draft) => save(item, draft)}
                    onCancel={() => closeEdit(item.id)}
                  />
                </li>
              );
            }
            return (
              <li key={item.id} className="rubric-item">
                <span className={`rubric-item__key${key ? "" : " rubric-item__key--none"}`}>
                  {key ? (
                    <>
                      <span className="visually-hidden">Key </span>
                      <kbd>{key}</kbd>
                    </>
                  ) : (
                    <span className="visually-hidden">No key</span>
                  )}
                </span>
                <div className="rubric-item__body">
                  <p className="rubric-item__text">{item.text}</p>
                  {item.spec_ref ? (
                    <p className="rubric-item__detail">
                      <span className="rubric-item__detail-label">Spec</span> <code>{item.spec_ref}</code>
                    </p>
                  ) : null}
                  {item.comment ? (
                    <p className="rubric-item__detail rubric-item__comment">
                      <span className="rubric-item__detail-label">Comment</span> {item.comment}
                    </p>
                  ) : null}
                </div>
                <span className={`rubric-item__points rubric-item__points--${item.points > 0 ? "plus" : item.points < 0 ? "minus" : "zero"}`}>
                  {formatPoints(item.points)}
                  <span className="visually-hidden"> {Math.abs(item.points) === 1 ? "mark" : "marks"}</span>
                </span>
                {canEdit ? (
                  <div className="rubric-item__actions">
                    <Button {...control(item.id, "edit")} variant="secondary" size="small" aria-label={`Edit “${item.text}”`} onClick={() => !busy && setEditingId(item.id)}>
                      Edit
                    </Button>
                    <Button
                      {...control(item.id, "up")}
                      variant="secondary"
                      size="small"
                      aria-label={`Move “${item.text}” up`}
                      disabled={index === 0}
                      onClick={() => void move(index, -1)}
                    >
                      ↑
                    </Button>
                    <Button
                      {...control(item.id, "down")}
                      variant="secondary"
                      size="small"
                      aria-label={`Move “${item.text}” down`}
                      disabled={index === ordered.length - 1}
                      onClick={() => void move(index, 1)}
                    >
                      ↓
                    </Button>
                    <Button
                      variant="danger-quiet"
                      size="small"
                      aria-label={`Delete “${item.text}”`}
                      onClick={() => {
                        if (busy) return;
                        setDeleteError(null);
                        setToDelete(item);
                      }}
                    >
                      Delete
                    </Button>
                  </div>
                ) : null}
              </li>
            );
          })}
        </ol>
      ) : null}
      {canEdit ? (
        adding ? (
          <div className="rubric__new">
            <ItemForm
              label={`New rubric item for question ${questionLabel}`}
              initial={emptyDraft}
              submitLabel="Add item"
              busyLabel="Adding…"
              busy={create.isPending}
              keepOpen
              autoFocus
              onSubmit={add}
              onCancel={() => {
                setAdding(false);
                setFocusWanted("new:add");
              }}
              cancelLabel="Done"
            />
          </div>
        ) : (
          <div className="rubric__add">
            <Button {...control("new", "add")} variant="secondary" size="small" onClick={() => setAdding(true)}>
              + Add rubric item
            </Button>
          </div>
        )
      ) : null}
      <p className="rubric__status" role="status">
        {announcement}
      </p>
      <ConfirmDialog
        open={toDelete !== null}
        title={toDelete ? `Delete “${toDelete.text}”?` : "Delete the item?"}
        confirmLabel="Delete item"
        busyLabel="Deleting…"
        busy={remove.isPending}
        onConfirm={() => void confirmDelete()}
        // The dialog gives the focus back to the Delete button that opened it.
        onCancel={() => setToDelete(null)}
      >
        <p>
          {uses === undefined
            ? "Marks that use it in this template’s open batches will be re-scored without it. Marks of archived batches keep their score."
            : uses === 0
              ? "No marks use it yet."
              : `${uses} mark${uses === 1 ? " uses" : "s use"} it: ${uses === 1 ? "it" : "they"} will be re-scored without it.`}
        </p>
        {deleteError ? <Status tone="error">{deleteError}</Status> : null}
      </ConfirmDialog>
    </section>
  );
}

interface ItemFormProps {
  /** The form's accessible name. */
  label: string;
  initial: ItemDraft;
  submitLabel: string;
  busyLabel: string;
  busy: boolean;
  /** Said under Points (an edit re-scores marks). */
  pointsNote?: string;
  /** Stays open and empties after a save, the focus back in Text (adding several items in a row). */
  keepOpen?: boolean;
  autoFocus?: boolean;
  cancelLabel?: string;
  /** Saves; answers the server's refusal, or null once saved (or when the draft has errors of its own). */
  onSubmit: (draft: ItemDraft) => Promise<string | null>;
  onCancel: () => void;
}

/** The fields of an item: text and points required, specification point and comment optional. */
function ItemForm({ label, initial, submitLabel, busyLabel, busy, pointsNote, keepOpen = false, autoFocus = false, cancelLabel = "Cancel", onSubmit, onCancel }: ItemFormProps) {
  const [draft, setDraft] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const commentId = useId();
  const pointsId = useId();
  /** The field named `field` (each has it as its name). */
  const focusField = (field: DraftField) => {
    const element = form.current?.elements.namedItem(field);
    if (element instanceof HTMLElement) element.focus();
  };

  useEffect(() => {
    if (autoFocus) focusField("text");
  }, [autoFocus]);

  const set = (field: DraftField) => (value: string) => {
    setDraft((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    const parsed = bodyOfDraft(draft);
    if ("errors" in parsed) {
      setErrors(parsed.errors);
      const first = (["text", "points"] as const).find((field) => parsed.errors[field]);
      if (first) focusField(first);
      return;
    }
    const refusal = await onSubmit(draft);
    if (refusal) {
      const placed = placeError(refusal);
      if (placed.field) {
        setErrors({ [placed.field]: placed.message });
        focusField(placed.field);
      } else {
        setFormError(placed.message);
      }
      return;
    }
    if (keepOpen) {
      setDraft(initial);
      setErrors({});
      focusField("text");
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== "Escape" || busy) return;
    // Esc leaves the form (and nothing else: the editor's own Esc would deselect the question).
    event.preventDefault();
    event.stopPropagation();
    onCancel();
  }

  return (
    <form ref={form} className="rubric-form" aria-label={label} noValidate onSubmit={(event) => void submit(event)} onKeyDown={onKeyDown}>
      <div className="rubric-form__row">
        <TextField
          name="text"
          label="Text"
          fieldClassName="rubric-form__text"
          value={draft.text}
          maxLength={500}
          required
          autoComplete="off"
          placeholder="e.g. Correct method"
          error={errors.text}
          onChange={(event) => set("text")(event.currentTarget.value)}
        />
        {/* Narrow beside Text; its error goes under the row, where a sentence has room. */}
        <div className="field rubric-form__points">
          <label className="field__label" htmlFor={pointsId}>
            Points
          </label>
          <input
            id={pointsId}
            name="points"
            className="input"
            value={draft.points}
            required
            autoComplete="off"
            placeholder="2 or -1"
            aria-invalid={errors.points ? true : undefined}
            aria-describedby={errors.points ? `${pointsId}-error` : undefined}
            onChange={(event) => set("points")(event.currentTarget.value)}
          />
        </div>
      </div>
      {errors.points ? (
        <p className="field__error" id={`${pointsId}-error`}>
          <AlertIcon size={16} className="status__icon" />
          <span>{errors.points}</span>
        </p>
      ) : null}
      {pointsNote ? <p className="field__hint">{pointsNote}</p> : null}
      <TextField
        name="spec_ref"
        label={
          <>
            Specification point <span className="rubric-form__optional">(optional)</span>
          </>
        }
        value={draft.spec_ref}
        maxLength={200}
        mono
        autoComplete="off"
        error={errors.spec_ref}
        onChange={(event) => set("spec_ref")(event.currentTarget.value)}
      />
      <div className="field">
        <label className="field__label" htmlFor={commentId}>
          Comment for the student <span className="rubric-form__optional">(optional)</span>
        </label>
        <textarea
          name="comment"
          id={commentId}
          className="input textarea"
          rows={2}
          maxLength={2000}
          value={draft.comment}
          aria-invalid={errors.comment ? true : undefined}
          aria-describedby={errors.comment ? `${commentId}-error` : undefined}
          onChange={(event) => set("comment")(event.currentTarget.value)}
        />
        {errors.comment ? (
          <p className="field__error" id={`${commentId}-error`}>
            <AlertIcon size={16} className="status__icon" />
            <span>{errors.comment}</span>
          </p>
        ) : null}
      </div>
      {formError ? <Status tone="error">{formError}</Status> : null}
      <div className="rubric-form__actions">
        <Button type="submit" size="small" loading={busy} loadingLabel={busyLabel}>
          {submitLabel}
        </Button>
        <Button variant="secondary" size="small" disabled={busy} onClick={onCancel}>
          {cancelLabel}
        </Button>
      </div>
    </form>
  );
}
