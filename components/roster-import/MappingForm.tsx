"use client";

import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { NameWarnings } from "./NameWarnings";
import { RememberedColumns } from "./RememberedColumns";
import type { RosterImportResult } from "./types";

export type Mapping = NonNullable<RosterImportResult["mapping"]>;
type SingleField = Exclude<keyof Mapping, "classCodes">;

/** The fields a column can fill, as the mapping screen names them (server/identity/roster-mapping.ts has the same list). */
const fields: { field: SingleField; label: string; hint: string }[] = [
  { field: "fullName", label: "Full name", hint: "Or first and last name below" },
  { field: "firstName", label: "First name", hint: "Also their display name; a preferred name goes here" },
  { field: "legalFirstName", label: "Legal first name", hint: "Used where the first name is blank" },
  { field: "lastName", label: "Last name", hint: "" },
  { field: "email", label: "Email", hint: "Email or username is needed" },
  { field: "username", label: "Username", hint: "" },
  { field: "yearGroup", label: "Year group", hint: "" },
  { field: "role", label: "Role", hint: "Student, teacher or administrator; none: student" },
  { field: "sisId", label: "ID in the school's system", hint: "Finds the same person on the next import" },
  { field: "teacher", label: "Teacher", hint: "Username or e-mail of the teacher of the row's classes" },
];

const NONE = "";

/** A select per field with sample values, and the class columns (several may hold class codes). */
export function MappingForm({
  result,
  mapping,
  onChange,
  onPreview,
  onBack,
  busy,
}: {
  result: RosterImportResult;
  mapping: Mapping;
  onChange: (mapping: Mapping) => void;
  onPreview: () => void;
  onBack: () => void;
  busy: boolean;
}) {
  const samplesOf = (name: string | null | undefined) => result.columns.find((column) => column.name === name)?.samples ?? [];
  const options = [{ value: NONE, label: "Not in this file" }, ...result.columns.map((column) => ({ value: column.name, label: column.name }))];
  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        onPreview();
      }}
    >
      {result.mappingRemembered ? (
        <RememberedColumns savedAt={result.mappingRemembered.savedAt} />
      ) : (
        <p>Choose which column holds what. Markbook guessed from the file&apos;s header; check the sample values.</p>
      )}
      <div className="form-row">
        {fields.map(({ field, label, hint }) => {
          const samples = samplesOf(mapping[field]);
          return (
            <SelectField
              key={field}
              label={label}
              options={options}
              value={mapping[field] ?? NONE}
              onChange={(event) => onChange({ ...mapping, [field]: event.target.value || null })}
              hint={samples.length > 0 ? `e.g. ${samples.join(", ")}` : hint || undefined}
            />
          );
        })}
      </div>
      <fieldset className="stack">
        <legend className="field__label">Class codes</legend>
        <p className="field__hint">Tick every column with class codes (one code per column, or several separated by ; or ,).</p>
        <div className="cluster">
          {result.columns.map((column) => (
            <label key={column.name} className="checkbox">
              <input
                type="checkbox"
                checked={mapping.classCodes.includes(column.name)}
                onChange={(event) =>
                  onChange({
                    ...mapping,
                    classCodes: event.target.checked ? [...mapping.classCodes, column.name] : mapping.classCodes.filter((name) => name !== column.name),
                  })
                }
              />
              {column.name}
            </label>
          ))}
        </div>
      </fieldset>
      <NameWarnings warnings={result.mappingWarnings} />
      {result.mappingProblems.length > 0 ? (
        <Status tone="warning" title="Before a preview">
          <ul>
            {result.mappingProblems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </Status>
      ) : null}
      <div className="cluster">
        <Button type="submit" disabled={busy}>
          {busy ? "Preparing the preview…" : "Preview import"}
        </Button>
        <Button type="button" variant="secondary" onClick={onBack}>
          Choose another file
        </Button>
      </div>
    </form>
  );
}
