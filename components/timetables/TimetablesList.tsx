"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage as errorMessage } from "@/lib/trpc/errors";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { EmptyState } from "@/components/ui/EmptyState";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { CalendarIcon } from "@/components/ui/icons";
import { Status } from "@/components/ui/Status";
import { ActionsHeader, RowLink, Table } from "@/components/ui/Table";
import { QueryStates } from "@/components/ui/QueryStates";
import { Notice } from "@/components/ui/Notice";
import { useTRPC } from "@/components/trpc/client";
import { timetableTypeLabels, type TimetableType } from "./time";
import { LocalDay } from "@/components/ui/dates";


const typeOptions = Object.entries(timetableTypeLabels).map(([value, label]) => ({ value, label }));

interface TimetableRow {
  id: string;
  name: string;
  type: TimetableType;
  class_id: string | null;
  active: boolean;
  starts_on: string | null;
  ends_on: string | null;
  created_at: Date;
}

type Editing = { mode: "create" } | { mode: "rename"; timetable: TimetableRow };

/** The school's timetables with filters; create, rename, activate and delete for managers. */
export function TimetablesList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [active, setActive] = useState<"" | "true" | "false">("");
  const [type, setType] = useState<"" | TimetableType>("");
  const [classId, setClassId] = useState("");
  const filters = { active: active === "" ? undefined : active === "true", type: type || undefined, class_id: classId || undefined };
  const list = useQuery(trpc.timetables.list.queryOptions(filters));
  const classes = useQuery(trpc.classes.list.queryOptions());
  const classNames = new Map((classes.data?.classes ?? []).map((row) => [row.id, row.name]));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.timetables.list.queryKey() });

  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<TimetableRow | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const activate = useMutation(
    trpc.timetables.activate.mutationOptions({
      onSuccess: (timetable) => {
        setNotice(`“${timetable.name}” is now active, in place of any other active timetable of the same type (and class).`);
        return invalidate();
      },
    }),
  );
  const deactivate = useMutation(
    trpc.timetables.deactivate.mutationOptions({
      onSuccess: (timetable) => {
        setNotice(`“${timetable.name}” is no longer active.`);
        return invalidate();
      },
    }),
  );
  const remove = useMutation(
    trpc.timetables.delete.mutationOptions({
      onSuccess: () => {
        setNotice(`“${deleting?.name}” was deleted with its lessons.`);
        setDeleting(null);
        return invalidate();
      },
    }),
  );

  const filtered = Boolean(active || type || classId);
  const newButton = (
    <Button onClick={() => setEditing({ mode: "create" })}>
      <CalendarIcon size={18} />
      New timetable
    </Button>
  );
  const actionError = activate.error ?? deactivate.error;

  return (
    <>
      <div className="toolbar">
        <div className="toolbar__filters" role="search" aria-label="Filter timetables">
          <SelectField
            label="State"
            value={active}
            onChange={(event) => setActive(event.currentTarget.value as "" | "true" | "false")}
            options={[
              { value: "", label: "Active and inactive" },
              { value: "true", label: "Active only" },
              { value: "false", label: "Inactive only" },
            ]}
          />
          <SelectField
            label="Type"
            value={type}
            onChange={(event) => setType(event.currentTarget.value as "" | TimetableType)}
            options={[{ value: "", label: "Any type" }, ...typeOptions]}
          />
          <SelectField
            label="Class"
            value={classId}
            onChange={(event) => setClassId(event.currentTarget.value)}
            options={[{ value: "", label: "Any class" }, ...(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))]}
          />
        </div>
        {newButton}
      </div>

      {notice ? <Notice onDismiss={() => setNotice(null)}>{notice}</Notice> : null}
      {actionError ? <Status tone="error" title="That did not work">{errorMessage(actionError)}</Status> : null}

      <QueryStates query={list} loading="Loading timetables…" what="The timetables">
        {(data) =>
          data.timetables.length === 0 ? (
            filtered ? (
              <EmptyState icon={<CalendarIcon size={28} />} title="No timetables match these filters">
                <p>Choose another state, type or class.</p>
              </EmptyState>
            ) : (
              <EmptyState icon={<CalendarIcon size={28} />} title="No timetables yet">
                <p>A timetable says which class meets when, with which teacher and in which room. Create one, then add its lessons week by week.</p>
                {newButton}
              </EmptyState>
            )
          ) : (
            <Table caption="Timetables, newest first">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">State</th>
                  <th scope="col">Dates</th>
                  <ActionsHeader />
                </tr>
              </thead>
              <tbody>
                {data.timetables.map((timetable) => (
                  <tr key={timetable.id}>
                    <RowLink href={`/timetables/${timetable.id}`}>{timetable.name}</RowLink>
                    <td>
                      {timetableTypeLabels[timetable.type]}
                      {timetable.class_id ? <span className="table__muted table__sub">{classNames.get(timetable.class_id) ?? "A class"}</span> : null}
                    </td>
                    <td>{timetable.active ? <Badge tone="success">Active</Badge> : <Badge tone="neutral">Inactive</Badge>}</td>
                    <td className="table__muted">
                      {/* A narrow column breaks the range between the dates, never inside one. */}
                      {timetable.starts_on || timetable.ends_on ? (
                        <>
                          <span className="date-range__date">{timetable.starts_on ? <LocalDay day={timetable.starts_on} /> : "…"} –</span>{" "}
                          <span className="date-range__date">{timetable.ends_on ? <LocalDay day={timetable.ends_on} /> : "…"}</span>
                        </>
                      ) : (
                        "No dates"
                      )}
                    </td>
                    <td className="table__actions">
                      <div className="row-actions">
                        {timetable.active ? (
                          <Button
                            variant="secondary"
                            size="small"
                            loading={deactivate.isPending && deactivate.variables?.id === timetable.id}
                            onClick={() => deactivate.mutate({ id: timetable.id })}
                            aria-label={`Deactivate ${timetable.name}`}
                          >
                            Deactivate
                          </Button>
                        ) : (
                          <Button
                            variant="secondary"
                            size="small"
                            loading={activate.isPending && activate.variables?.id === timetable.id}
                            onClick={() => activate.mutate({ id: timetable.id })}
                            aria-label={`Activate ${timetable.name}`}
                          >
                            Activate
                          </Button>
                        )}
                        <Button variant="secondary" size="small" onClick={() => setEditing({ mode: "rename", timetable })} aria-label={`Rename ${timetable.name}`}>
                          Rename
                        </Button>
                        <Button
                          variant="danger-quiet"
                          size="small"
                          onClick={() => {
                            remove.reset();
                            setDeleting(timetable);
                          }}
                          aria-label={`Delete ${timetable.name}`}
                        >
                          Delete
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </QueryStates>

      <TimetableDialog
        editing={editing}
        classes={(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))}
        onClose={() => setEditing(null)}
        onSaved={(message) => {
          setEditing(null);
          setNotice(message);
          return invalidate();
        }}
      />

      <ConfirmDialog
        open={deleting !== null}
        title="Delete this timetable?"
        confirmLabel="Delete timetable"
        busyLabel="Deleting…"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        onCancel={() => setDeleting(null)}
      >
        <p>“{deleting?.name}” and all of its lessons will be deleted. Classes, teachers and students are not affected. This cannot be undone.</p>
        {remove.isError ? <Status tone="error">{errorMessage(remove.error)}</Status> : null}
      </ConfirmDialog>
    </>
  );
}

interface TimetableDialogProps {
  editing: Editing | null;
  classes: Array<{ value: string; label: string }>;
  onClose: () => void;
  onSaved: (message: string) => unknown;
}

/** Create a timetable, or rename one: one small form. */
function TimetableDialog({ editing, classes, onClose, onSaved }: TimetableDialogProps) {
  const trpc = useTRPC();
  const [name, setName] = useState("");
  const [type, setType] = useState<TimetableType>("school");
  const [classId, setClassId] = useState("");
  const [startsOn, setStartsOn] = useState("");
  const [endsOn, setEndsOn] = useState("");
  const [errors, setErrors] = useState<{ name?: string; class?: string; dates?: string }>({});
  const [openedFor, setOpenedFor] = useState<Editing | null>(null);
  const create = useMutation(trpc.timetables.create.mutationOptions());
  const update = useMutation(trpc.timetables.update.mutationOptions());

  // Fresh fields each time the dialog opens (state set during render, React's documented pattern).
  if (editing !== openedFor) {
    setOpenedFor(editing);
    setName(editing?.mode === "rename" ? editing.timetable.name : "");
    setType("school");
    setClassId("");
    setStartsOn("");
    setEndsOn("");
    setErrors({});
    create.reset();
    update.reset();
  }

  const renaming = editing?.mode === "rename";
  const mutation = renaming ? update : create;

  function submit() {
    const found: typeof errors = {};
    if (!name.trim()) found.name = "Give the timetable a name, for example “Whole school, autumn term”.";
    if (!renaming && type === "class" && !classId) found.class = "Choose the class this timetable is for.";
    if (!renaming && startsOn && endsOn && endsOn < startsOn) found.dates = "The last day must not be before the first day.";
    setErrors(found);
    if (Object.keys(found).length) return;
    if (editing?.mode === "rename") {
      update.mutate(
        { id: editing.timetable.id, name: name.trim() },
        { onSuccess: (timetable) => onSaved(`Renamed to “${timetable.name}”.`) },
      );
    } else {
      create.mutate(
        {
          name: name.trim(),
          type,
          class_id: type === "class" ? classId : null,
          starts_on: startsOn || null,
          ends_on: endsOn || null,
        },
        { onSuccess: (timetable) => onSaved(`Created “${timetable.name}”. It is inactive until you activate it.`) },
      );
    }
  }

  return (
    <FormDialog
      open={editing !== null}
      title={renaming ? "Rename timetable" : "New timetable"}
      description={renaming ? undefined : "New timetables start inactive, so you can fill them in before they take effect."}
      submitLabel={renaming ? "Rename" : "Create timetable"}
      busyLabel={renaming ? "Renaming…" : "Creating…"}
      busy={mutation.isPending}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} maxLength={200} error={errors.name} autoComplete="off" />
      {renaming ? null : (
        <>
          <SelectField label="Type" value={type} onChange={(event) => setType(event.currentTarget.value as TimetableType)} options={typeOptions} />
          {type === "class" ? (
            <SelectField
              label="Class"
              value={classId}
              onChange={(event) => setClassId(event.currentTarget.value)}
              options={[{ value: "", label: "Choose a class…" }, ...classes]}
              error={errors.class}
            />
          ) : null}
          <div className="form-row">
            <TextField label="First day (optional)" type="date" value={startsOn} onChange={(event) => setStartsOn(event.currentTarget.value)} />
            <TextField label="Last day (optional)" type="date" value={endsOn} onChange={(event) => setEndsOn(event.currentTarget.value)} error={errors.dates} />
          </div>
        </>
      )}
      {mutation.isError ? <Status tone="error" title="Not saved">{errorMessage(mutation.error)}</Status> : null}
    </FormDialog>
  );
}
