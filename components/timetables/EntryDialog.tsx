"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import { dayName, dayNames } from "./time";

/** The lesson being edited (id) or created (id null), as the form holds it. */
export interface EntryDraft {
  id: string | null;
  day: number;
  period: number;
  start_time: string;
  end_time: string;
  room: string;
  class_id: string;
  teacher_id: string;
}

type Option = { value: string; label: string };
type FieldErrors = Partial<Record<"period" | "start_time" | "end_time" | "room" | "teacher_id", string>>;

const dayOptions = dayNames.map((name, index) => ({ value: String(index + 1), label: name }));

interface EntryDialogProps {
  timetableId: string;
  draft: EntryDraft | null;
  classes: Option[];
  teachers: Option[];
  onClose: () => void;
  onDone: (message: string) => unknown;
}

/**
 * Create or edit one lesson of a timetable. End after start is checked here; a double booking of the
 * teacher or room is refused by the server (409) and explained at the field it is about.
 */
export function EntryDialog({ timetableId, draft, classes, teachers, onClose, onDone }: EntryDialogProps) {
  const trpc = useTRPC();
  const [values, setValues] = useState<EntryDraft | null>(draft);
  const [openedFor, setOpenedFor] = useState<EntryDraft | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [clash, setClash] = useState<string | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const create = useMutation(trpc.timetables.createEntry.mutationOptions());
  const update = useMutation(trpc.timetables.updateEntry.mutationOptions());
  const remove = useMutation(trpc.timetables.deleteEntry.mutationOptions());

  // Fresh fields each time the dialog opens for another lesson (state set during render, as React documents).
  if (draft !== openedFor) {
    setOpenedFor(draft);
    setValues(draft);
    setErrors({});
    setClash(null);
    setConfirmingDelete(false);
    create.reset();
    update.reset();
    remove.reset();
  }

  const editing = Boolean(draft?.id);
  const saving = create.isPending || update.isPending;
  const saveError = create.error ?? update.error;
  const set = <K extends keyof EntryDraft>(key: K, value: EntryDraft[K]) => setValues((current) => (current ? { ...current, [key]: value } : current));

  function validate(entry: EntryDraft): FieldErrors {
    const found: FieldErrors = {};
    if (!Number.isInteger(entry.period) || entry.period < 1 || entry.period > 100) found.period = "Give a period number from 1 to 100.";
    if (!entry.start_time) found.start_time = "Give the time the lesson starts.";
    if (!entry.end_time) found.end_time = "Give the time the lesson ends.";
    else if (entry.start_time && entry.end_time <= entry.start_time) found.end_time = "The lesson must end after it starts.";
    return found;
  }

  function onFailure(error: unknown) {
    if (errorCode(error) === "CONFLICT") {
      // The server names the clashing lesson by id too; the class, teacher or room says enough here.
      const message = errorMessage(error).replace(/entry [0-9a-f-]{36}(, )?/i, "").replace(" ()", "");
      setClash(message);
      setErrors(message.startsWith("Room") ? { room: "This room is already booked then." } : { teacher_id: "This teacher is already booked then." });
    }
  }

  function submit() {
    if (!values) return;
    const found = validate(values);
    setErrors(found);
    setClash(null);
    if (Object.keys(found).length) return;
    const fields = {
      day: values.day,
      period: values.period,
      start_time: values.start_time,
      end_time: values.end_time,
      room: values.room.trim() || null,
      class_id: values.class_id || null,
      teacher_id: values.teacher_id || null,
    };
    const where = `${dayName(values.day)}, period ${values.period}`;
    if (values.id) {
      update.mutate({ id: values.id, ...fields }, { onSuccess: () => onDone(`Lesson on ${where} saved.`), onError: onFailure });
    } else {
      create.mutate({ timetable_id: timetableId, ...fields }, { onSuccess: () => onDone(`Lesson added on ${where}.`), onError: onFailure });
    }
  }

  return (
    <FormDialog
      open={draft !== null}
      title={editing ? "Edit lesson" : "Add a lesson"}
      description={
        draft ? `${dayName(draft.day)}, period ${draft.period}. A teacher or room can only be in one lesson per period.` : undefined
      }
      submitLabel={editing ? "Save lesson" : "Add lesson"}
      busyLabel="Saving…"
      busy={saving || remove.isPending}
      onSubmit={submit}
      onClose={onClose}
      className="entry-dialog"
      secondaryAction={
        editing && !confirmingDelete ? (
          <Button variant="danger-quiet" onClick={() => setConfirmingDelete(true)} disabled={saving}>
            Delete lesson
          </Button>
        ) : null
      }
    >
      {values ? (
        <>
          {clash ? (
            <Status tone="error" title="This lesson clashes with another one">
              {clash}. Choose another teacher, room or period.
            </Status>
          ) : saveError && errorCode(saveError) !== "CONFLICT" ? (
            <Status tone="error" title="The lesson was not saved">
              {errorMessage(saveError)}
            </Status>
          ) : null}

          <div className="form-row">
            <SelectField label="Day" value={String(values.day)} onChange={(event) => set("day", Number(event.currentTarget.value))} options={dayOptions} />
            <TextField
              label="Period"
              type="number"
              inputMode="numeric"
              min={1}
              max={100}
              fieldClassName="field--narrow"
              value={Number.isNaN(values.period) ? "" : String(values.period)}
              onChange={(event) => set("period", event.currentTarget.valueAsNumber)}
              error={errors.period}
            />
          </div>
          <div className="form-row">
            <TextField label="Starts" type="time" value={values.start_time} onChange={(event) => set("start_time", event.currentTarget.value)} error={errors.start_time} />
            <TextField label="Ends" type="time" value={values.end_time} onChange={(event) => set("end_time", event.currentTarget.value)} error={errors.end_time} />
          </div>
          <div className="form-row">
            <SelectField
              label="Class"
              value={values.class_id}
              onChange={(event) => set("class_id", event.currentTarget.value)}
              options={[{ value: "", label: "No class" }, ...classes]}
            />
            <SelectField
              label="Teacher"
              value={values.teacher_id}
              onChange={(event) => set("teacher_id", event.currentTarget.value)}
              options={[{ value: "", label: "No teacher" }, ...teachers]}
              error={errors.teacher_id}
            />
          </div>
          <TextField
            label="Room"
            hint="Optional, for example M1."
            value={values.room}
            maxLength={100}
            autoComplete="off"
            onChange={(event) => set("room", event.currentTarget.value)}
            error={errors.room}
          />

          {confirmingDelete && values.id ? (
            <div className="inline-confirm" role="group" aria-label="Confirm deletion">
              <p>Delete this lesson from the timetable? This cannot be undone.</p>
              {remove.isError ? <Status tone="error">{errorMessage(remove.error)}</Status> : null}
              <div className="cluster">
                <Button
                  variant="danger"
                  loading={remove.isPending}
                  loadingLabel="Deleting…"
                  onClick={() =>
                    remove.mutate(
                      { id: values.id! },
                      { onSuccess: () => onDone(`Lesson on ${dayName(values.day)}, period ${values.period} deleted.`) },
                    )
                  }
                >
                  Yes, delete the lesson
                </Button>
                <Button variant="secondary" onClick={() => setConfirmingDelete(false)} disabled={remove.isPending}>
                  Keep it
                </Button>
              </div>
            </div>
          ) : null}
        </>
      ) : null}
    </FormDialog>
  );
}
