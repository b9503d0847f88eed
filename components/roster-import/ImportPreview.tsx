import { Badge } from "@/components/ui/Badge";
import { Status } from "@/components/ui/Status";
import { NameWarnings } from "./NameWarnings";
import { Table } from "@/components/ui/Table";
import type { RosterImportResult } from "./types";
import { plural } from "@/lib/text/plural";

/** Rows shown per table: a first import of a whole school lists thousands; the counts say how many in all. */
const SHOWN = 200;

const roleLabel = { student: "Student", teacher: "Teacher", department_head: "Department head", school_admin: "Administrator" } as const;

function More({ total }: { total: number }) {
  return total > SHOWN ? <p className="muted">And {total - SHOWN} more (the counts above include them).</p> : null;
}

type Person = RosterImportResult["people"]["create"][number];

function PeopleTable({ caption, people, showChanges }: { caption: string; people: Person[]; showChanges: boolean }) {
  return (
    <>
      <Table caption={caption}>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Name</th>
            <th scope="col">Email or username</th>
            <th scope="col">Role</th>
            <th scope="col">Classes</th>
            {showChanges ? <th scope="col">What changes</th> : null}
          </tr>
        </thead>
        <tbody>
          {people.slice(0, SHOWN).map((person) => (
            <tr key={person.row}>
              <td>{person.row}</td>
              <th scope="row">{person.name}</th>
              <td>{person.email ?? <span className="table__muted">{person.username} (no email)</span>}</td>
              <td>
                {roleLabel[person.role]}
                {person.yearGroup ? <span className="table__muted table__sub">Year group {person.yearGroup}</span> : null}
              </td>
              <td>{person.classes.join(", ") || <span className="table__muted">None</span>}</td>
              {showChanges ? <td>{[...person.changes, ...person.notes].join("; ") || <span className="table__muted">—</span>}</td> : null}
            </tr>
          ))}
        </tbody>
      </Table>
      <More total={people.length} />
    </>
  );
}

/** What an import will do (or did): counts, then who is created, updated, unchanged and skipped, and why. */
export function ImportPreview({ result }: { result: RosterImportResult }) {
  const { counts, people, classes, skipped } = result;
  const classRows = [
    ...classes.create.map((row) => ({ ...row, state: "New" })),
    ...classes.update.map((row) => ({ ...row, state: "Updated" })),
    ...classes.unchanged.map((row) => ({ ...row, state: "Unchanged" })),
  ];
  return (
    <div className="stack">
      <NameWarnings warnings={result.mappingWarnings} />
      <dl className="details" aria-label="Summary">
        <dt>{result.applied ? "Created" : "Will be created"}</dt>
        <dd>{plural(counts.create, "person", "people")}</dd>
        <dt>{result.applied ? "Updated" : "Will be updated"}</dt>
        <dd>{plural(counts.update, "person", "people")}</dd>
        <dt>Unchanged</dt>
        <dd>{plural(counts.unchanged, "person", "people")}</dd>
        <dt>Skipped</dt>
        <dd>{plural(counts.skip, "row")}</dd>
        <dt>Classes</dt>
        <dd>
          {counts.classesCreate} new, {counts.classesUpdate} updated, {counts.classesUnchanged} unchanged; {plural(counts.enrollmentsCreate, "student joins", "students join")} a class
        </dd>
      </dl>
      {result.applied ? null : (
        <Status tone="info" role="none">
          Nothing will be deleted or deactivated: an import only adds and updates. Imported people get no password; set one on the People page.
        </Status>
      )}

      {people.create.length > 0 ? (
        <section className="stack" aria-labelledby="import-create">
          <h2 id="import-create">{result.applied ? "Created" : "Will be created"}</h2>
          <PeopleTable caption="People created by the import" people={people.create} showChanges={false} />
        </section>
      ) : null}
      {people.update.length > 0 ? (
        <section className="stack" aria-labelledby="import-update">
          <h2 id="import-update">{result.applied ? "Updated" : "Will be updated"}</h2>
          <PeopleTable caption="People updated by the import" people={people.update} showChanges />
        </section>
      ) : null}
      {skipped.length > 0 ? (
        <section className="stack" aria-labelledby="import-skip">
          <h2 id="import-skip">Skipped</h2>
          <Table caption="Rows the import skips, with the reason">
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Name</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {skipped.slice(0, SHOWN).map((row) => (
                <tr key={row.row}>
                  <td>{row.row}</td>
                  <th scope="row">{row.name ?? <span className="table__muted">No name</span>}</th>
                  <td>{row.reason}</td>
                </tr>
              ))}
            </tbody>
          </Table>
          <More total={skipped.length} />
        </section>
      ) : null}
      {classRows.length > 0 ? (
        <section className="stack" aria-labelledby="import-classes">
          <h2 id="import-classes">Classes</h2>
          <Table caption="Classes in the import">
            <thead>
              <tr>
                <th scope="col">Class</th>
                <th scope="col">Teachers</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {classRows.slice(0, SHOWN).map((row) => (
                <tr key={row.row + row.name}>
                  <th scope="row">{row.name}</th>
                  <td>
                    {row.teacher ?? <span className="table__muted">No main teacher</span>}
                    {row.otherTeachers.length > 0 ? <span className="table__muted table__sub">Also {row.otherTeachers.join(", ")}</span> : null}
                    {row.notes.map((note) => (
                      <span key={note} className="table__sub table__note">
                        {note}
                      </span>
                    ))}
                  </td>
                  <td>
                    <Badge tone={row.state === "Unchanged" ? "neutral" : "success"}>{row.state}</Badge>
                    {row.changes.length > 0 ? <span className="table__muted table__sub">{row.changes.join("; ")}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
          <More total={classRows.length} />
        </section>
      ) : null}
      {people.unchanged.length > 0 ? (
        <details>
          <summary>
            {people.unchanged.length} {people.unchanged.length === 1 ? "person is" : "people are"} already up to date
          </summary>
          <PeopleTable caption="People the import leaves unchanged" people={people.unchanged} showChanges />
        </details>
      ) : null}
    </div>
  );
}
