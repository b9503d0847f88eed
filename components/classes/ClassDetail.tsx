"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { errorMessage } from "@/lib/trpc/errors";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { EmptyState } from "@/components/ui/EmptyState";
import { TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { UsersIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { ActionsHeader, Table } from "@/components/ui/Table";
import { Loading } from "@/components/ui/Loading";
import { QueryStates } from "@/components/ui/QueryStates";
import { Notice } from "@/components/ui/Notice";
import { useOnOpen } from "@/components/ui/use-on-open";
import { useTRPC } from "@/components/trpc/client";
import { LocalDate } from "@/components/ui/dates";
import { ClassTeachers } from "./ClassTeachers";
import { SignInSlipsDialog } from "@/components/people/SignInSlipsDialog";
import { StudentPicker } from "./StudentPicker";


interface StudentRow {
  id: string;
  full_name: string;
  email: string;
  active: boolean;
  enrolled_at: Date;
}

/** One class: its students; school admins add and remove students and rename the class. */
export function ClassDetail({ classId, isSchoolAdmin }: { classId: string; isSchoolAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const classes = useQuery(trpc.classes.list.queryOptions());
  const [showRemoved, setShowRemoved] = useState(false);
  const students = useQuery(trpc.classes.students.queryOptions({ classId, includeInactive: showRemoved }));
  const [removing, setRemoving] = useState<StudentRow | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [printingSlips, setPrintingSlips] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const refreshStudents = () => queryClient.invalidateQueries({ queryKey: trpc.classes.students.queryKey() });
  const remove = useMutation(
    trpc.classes.removeStudent.mutationOptions({
      onSuccess: () => {
        setNotice(`${removing?.full_name} was removed from the class. Their marks and scripts are kept.`);
        setRemoving(null);
        return refreshStudents();
      },
    }),
  );
  const restore = useMutation(
    trpc.classes.addStudent.mutationOptions({
      onSuccess: () => refreshStudents(),
    }),
  );

  if (classes.isPending) {
    return <Loading>Loading the class…</Loading>;
  }
  const schoolClass = classes.data?.classes.find((row) => row.id === classId);
  if (!schoolClass) {
    return (
      <div className="page">
        <Link href="/classes" className="back-link">← All classes</Link>
        {classes.isError ? (
          <LoadFailed what="The class" error={classes.error} onRetry={() => classes.refetch()} />
        ) : (
          <EmptyState icon={<UsersIcon size={28} />} title="Class not found">
            <p>It may belong to another school, or the link is wrong. Choose a class from the list.</p>
          </EmptyState>
        )}
      </div>
    );
  }

  const rows = students.data?.students ?? [];
  const activeCount = rows.filter((row) => row.active).length;
  const enrolledIds = new Set(rows.filter((row) => row.active).map((row) => row.id));

  return (
    <div className="page">
      <Link href="/classes" className="back-link">← All classes</Link>
      <header className="page__header class-header">
        <div>
          <h1>{schoolClass.name}</h1>
          <p className="page__lede">
            {[
              schoolClass.subject,
              schoolClass.teacher_name ? `taught by ${schoolClass.teacher_name}` : "no main teacher yet",
              schoolClass.other_teachers.length > 0 ? `with ${schoolClass.other_teachers.map((teacher) => teacher.full_name).join(", ")}` : null,
            ]
              .filter(Boolean)
              .join(", ")}
          </p>
        </div>
        {isSchoolAdmin ? (
          <div className="class-header__actions">
            <Button variant="secondary" onClick={() => setPrintingSlips(true)}>
              Sign-in slips
            </Button>
            <Button variant="secondary" onClick={() => setRenaming(true)}>
              Rename class
            </Button>
          </div>
        ) : null}
      </header>

      {notice ? <Notice onDismiss={() => setNotice(null)}>{notice}</Notice> : null}

      {isSchoolAdmin ? (
        <Card id="teachers" title="Teachers" description="Staff of your school who teach this class. Each of them can start a marking batch for it.">
          <ClassTeachers
            classId={classId}
            className={schoolClass.name}
            mainTeacher={schoolClass.teacher_id ? { id: schoolClass.teacher_id, full_name: schoolClass.teacher_name ?? "" } : null}
            otherTeachers={schoolClass.other_teachers}
            onChanged={setNotice}
          />
        </Card>
      ) : null}

      {isSchoolAdmin ? (
        <Card id="add-student" title="Add a student" description="Students of your school who are not in this class yet.">
          <StudentPicker
            classId={classId}
            enrolledIds={enrolledIds}
            onAdded={(name) => {
              setNotice(`${name} was added to ${schoolClass.name}.`);
              return refreshStudents();
            }}
          />
        </Card>
      ) : null}

      <Card
        id="students"
        title={`Students${students.data ? ` (${activeCount})` : ""}`}
        description={isSchoolAdmin ? "Removing a student ends their place in the class; their marks and scripts are kept." : undefined}
      >
        <div className="stack">
          <label className="checkbox">
            <input type="checkbox" checked={showRemoved} onChange={(event) => setShowRemoved(event.currentTarget.checked)} />
            Also show students who were removed
          </label>
          <QueryStates query={students} loading="Loading students…" what="The students">
            {() =>
              rows.length === 0 ? (
                <p className="muted token-empty">
                  No students in this class yet.{isSchoolAdmin ? " Add them above." : ""}
                </p>
              ) : (
                <Table caption={`Students of ${schoolClass.name}`}>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Email</th>
                      <th scope="col">In class since</th>
                      {showRemoved ? <th scope="col">State</th> : null}
                      {isSchoolAdmin ? (
                        <ActionsHeader />
                      ) : null}
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((student) => (
                      <tr key={student.id}>
                        <th scope="row">{student.full_name}</th>
                        <td className="table__muted">{student.email}</td>
                        <td className="table__muted">
                          <LocalDate value={student.enrolled_at} />
                        </td>
                        {showRemoved ? (
                          <td>{student.active ? <Badge tone="success">In class</Badge> : <Badge tone="neutral">Removed</Badge>}</td>
                        ) : null}
                        {isSchoolAdmin ? (
                          <td className="table__actions">
                            {student.active ? (
                              <Button
                                variant="danger-quiet"
                                size="small"
                                onClick={() => {
                                  remove.reset();
                                  setRemoving(student);
                                }}
                                aria-label={`Remove ${student.full_name} from the class`}
                              >
                                Remove
                              </Button>
                            ) : (
                              <Button
                                variant="secondary"
                                size="small"
                                loading={restore.isPending && restore.variables?.studentId === student.id}
                                onClick={() => restore.mutate({ classId, studentId: student.id })}
                                aria-label={`Add ${student.full_name} back to the class`}
                              >
                                Add back
                              </Button>
                            )}
                          </td>
                        ) : null}
                      </tr>
                    ))}
                  </tbody>
                </Table>
              )
            }
          </QueryStates>
          {restore.isError ? <Status tone="error">{errorMessage(restore.error)}</Status> : null}
        </div>
      </Card>

      <ConfirmDialog
        open={removing !== null}
        title="Remove this student from the class?"
        confirmLabel="Remove from class"
        busyLabel="Removing…"
        busy={remove.isPending}
        onConfirm={() => removing && remove.mutate({ classId, studentId: removing.id })}
        onCancel={() => setRemoving(null)}
      >
        <p>
          {removing?.full_name} will no longer be in {schoolClass.name}, and new batches of the class will not include them. Their
          marks and scripts are kept, and you can add them back later.
        </p>
        {remove.isError ? <Status tone="error">{errorMessage(remove.error)}</Status> : null}
      </ConfirmDialog>

      {isSchoolAdmin ? (
        <SignInSlipsDialog
          open={printingSlips}
          classId={classId}
          onClose={() => setPrintingSlips(false)}
          onPrinted={(summary) => {
            setPrintingSlips(false);
            setNotice(summary);
          }}
        />
      ) : null}
      {isSchoolAdmin ? (
        <RenameClassDialog
          open={renaming}
          classId={classId}
          currentName={schoolClass.name}
          onClose={() => setRenaming(false)}
          onRenamed={(name) => {
            setRenaming(false);
            setNotice(`The class is now called “${name}”.`);
          }}
        />
      ) : null}
    </div>
  );
}

interface RenameClassDialogProps {
  open: boolean;
  classId: string;
  currentName: string;
  onClose: () => void;
  onRenamed: (name: string) => void;
}

function RenameClassDialog({ open, classId, currentName, onClose, onRenamed }: RenameClassDialogProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(currentName);
  const [error, setError] = useState<string | null>(null);
  const rename = useMutation(
    trpc.classes.rename.mutationOptions({
      onSuccess: (renamed) => {
        onRenamed(renamed.name);
        return queryClient.invalidateQueries({ queryKey: trpc.classes.list.queryKey() });
      },
    }),
  );

  useOnOpen(open, () => {
    setName(currentName);
    setError(null);
    rename.reset();
  });

  return (
    <FormDialog
      open={open}
      title="Rename class"
      submitLabel="Rename"
      busyLabel="Renaming…"
      busy={rename.isPending}
      onClose={onClose}
      onSubmit={() => {
        if (!name.trim()) {
          setError("Give the class a name.");
          return;
        }
        setError(null);
        rename.mutate({ classId, name: name.trim() });
      }}
    >
      <TextField label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} maxLength={200} error={error} autoComplete="off" />
      {rename.isError ? <Status tone="error" title="Not renamed">{errorMessage(rename.error)}</Status> : null}
    </FormDialog>
  );
}
