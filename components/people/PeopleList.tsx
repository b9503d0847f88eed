"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { SelectField, TextField } from "@/components/ui/Field";
import { UsersIcon } from "@/components/ui/icons";
import { Notice } from "@/components/ui/Notice";
import { QueryStates } from "@/components/ui/QueryStates";
import { RowLink, Table } from "@/components/ui/Table";
import { useTRPC } from "@/components/trpc/client";
import type { Role } from "@/lib/rules/roles";
import { AddPersonDialog } from "./AddPersonDialog";
import { PersonStatus, roleLabels, roleOptions } from "./person-labels";
import { SignInSlipsDialog } from "./SignInSlipsDialog";

const PAGE_SIZE = 50;
type StatusFilter = "" | "active" | "deactivated";

/** The people of the school: search, filters, a page at a time; admins add people here. */
export function PeopleList() {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [role, setRole] = useState<"" | Role>("");
  const [classId, setClassId] = useState("");
  const [status, setStatus] = useState<StatusFilter>("active");
  const [offset, setOffset] = useState(0);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<{ id: string; full_name: string } | null>(null);
  const [slipsOpen, setSlipsOpen] = useState(false);
  const [slipsPrinted, setSlipsPrinted] = useState<string | null>(null);
  /** People ticked for sign-in slips, kept across pages and filters. */
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
  const tick = (id: string, on: boolean) =>
    setTicked((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  // Typing does not ask the server on every key stroke while the previous answer is still coming.
  const deferredSearch = useDeferredValue(search.trim());
  const classes = useQuery(trpc.classes.list.queryOptions());
  const list = useQuery({
    ...trpc.people.list.queryOptions({
      search: deferredSearch || undefined,
      role: role || undefined,
      class_id: classId || undefined,
      status: status || undefined,
      limit: PAGE_SIZE,
      offset,
    }),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(deferredSearch || role || classId || status !== "active");
  const filter = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setOffset(0);
  };

  const addButton = (
    <Button onClick={() => setAdding(true)}>
      <UsersIcon size={18} />
      Add person
    </Button>
  );

  return (
    <>
      <div className="toolbar">
        <div className="toolbar__filters" role="search" aria-label="Filter people">
          <TextField label="Search" type="search" value={search} onChange={(event) => filter(setSearch)(event.currentTarget.value)} placeholder="Name or email" />
          <SelectField
            label="Role"
            value={role}
            onChange={(event) => filter(setRole)(event.currentTarget.value as "" | Role)}
            options={[{ value: "", label: "Any role" }, ...roleOptions]}
          />
          <SelectField
            label="Class"
            value={classId}
            onChange={(event) => filter(setClassId)(event.currentTarget.value)}
            options={[{ value: "", label: "Any class" }, ...(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))]}
          />
          <SelectField
            label="Status"
            value={status}
            onChange={(event) => filter(setStatus)(event.currentTarget.value as StatusFilter)}
            options={[
              { value: "active", label: "Active" },
              { value: "deactivated", label: "Deactivated" },
              { value: "", label: "Everyone" },
            ]}
          />
        </div>
        <div className="toolbar__actions">
          <Link href="/people/import" className={buttonClassName({ variant: "secondary" })}>
            Import class list
          </Link>
          <Button variant="secondary" onClick={() => setSlipsOpen(true)}>
            Sign-in slips{ticked.size > 0 ? ` (${ticked.size} ticked)` : ""}
          </Button>
          {addButton}
        </div>
      </div>
      {slipsPrinted ? <Notice onDismiss={() => setSlipsPrinted(null)}>{slipsPrinted}</Notice> : null}
      {added ? (
        <Notice onDismiss={() => setAdded(null)}>
          {added.full_name} was added. <Link href={`/people/${added.id}`}>Open them to give them a password</Link>.
        </Notice>
      ) : null}

      <QueryStates query={list} loading="Loading people…" what="The people">
        {(data) =>
          data.people.length === 0 ? (
            filtered ? (
              <EmptyState icon={<UsersIcon size={28} />} title="Nobody matches these filters">
                <p>Clear the search, or choose another role, class or status.</p>
              </EmptyState>
            ) : (
              <EmptyState icon={<UsersIcon size={28} />} title="No people yet">
                <p>Add the teachers and students of your school one by one, or import the class lists your school’s information system exports.</p>
                {addButton}
              </EmptyState>
            )
          ) : (
            <>
              <p className="muted" role="status">
                {data.total === 1 ? "1 person" : `${data.total} people`}
                {data.total > data.people.length ? `, showing ${offset + 1}–${offset + data.people.length}` : ""}
              </p>
              <Table caption={`People of your school, ${data.total} in all`}>
                <thead>
                  <tr>
                    <th scope="col">
                      <span className="visually-hidden">Ticked for sign-in slips</span>
                    </th>
                    <th scope="col">Name</th>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Classes</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {data.people.map((person) => (
                    <tr key={person.id}>
                      <td>
                        <input
                          type="checkbox"
                          className="table__tick"
                          checked={ticked.has(person.id)}
                          onChange={(event) => tick(person.id, event.currentTarget.checked)}
                          aria-label={`Tick ${person.full_name} for sign-in slips`}
                        />
                      </td>
                      <RowLink href={`/people/${person.id}`} sub={person.year_group ?? undefined}>
                        {person.full_name}
                      </RowLink>
                      <td className="table__muted people__email">{person.email}</td>
                      <td>{person.roles.map((held) => roleLabels[held]).join(", ") || <span className="table__muted">No role</span>}</td>
                      <td>{person.classes.join(", ") || <span className="table__muted">—</span>}</td>
                      <td>
                        <PersonStatus person={person} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
              {data.total > PAGE_SIZE ? (
                <nav className="pager" aria-label="Pages of people">
                  <Button variant="secondary" size="small" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                    Previous
                  </Button>
                  <Button variant="secondary" size="small" disabled={offset + PAGE_SIZE >= data.total} onClick={() => setOffset(offset + PAGE_SIZE)}>
                    Next
                  </Button>
                </nav>
              ) : null}
            </>
          )
        }
      </QueryStates>

      <SignInSlipsDialog
        open={slipsOpen}
        classId={classId || undefined}
        selection={[...ticked]}
        onClose={() => setSlipsOpen(false)}
        onPrinted={(summary) => {
          setSlipsOpen(false);
          setSlipsPrinted(summary);
          setTicked(new Set());
        }}
      />
      <AddPersonDialog
        open={adding}
        onClose={() => setAdding(false)}
        onAdded={(person) => {
          setAdding(false);
          setAdded(person);
        }}
      />
    </>
  );
}
