"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { SelectField, TextField } from "@/components/ui/Field";
import { TemplateIcon } from "@/components/ui/icons";
import { RowLink, Table } from "@/components/ui/Table";
import { QueryStates } from "@/components/ui/QueryStates";
import { useTRPC } from "@/components/trpc/client";
import { NewTemplateDialog } from "./NewTemplateDialog";
import { TemplateStatusBadge, type TemplateStatus } from "./template-status";

const updatedFormat = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

const statusOptions = [
  { value: "", label: "Any status" },
  { value: "draft", label: "Draft" },
  { value: "ready", label: "Ready" },
  { value: "archived", label: "Archived" },
];

/** Templates the caller can see, with filters, and the "New template" dialog. */
export function TemplatesList() {
  const trpc = useTRPC();
  const [status, setStatus] = useState<"" | TemplateStatus>("");
  const [subject, setSubject] = useState("");
  const [search, setSearch] = useState("");
  const [includeArchived, setIncludeArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const list = useQuery(
    trpc.exam.templates.list.queryOptions({ status: status || undefined, include_archived: includeArchived }),
  );

  const templates = list.data?.templates;
  const subjects = useMemo(
    () => [...new Set((templates ?? []).map((t) => t.subject).filter((s): s is string => Boolean(s)))].sort(),
    [templates],
  );
  const needle = search.trim().toLowerCase();
  const shown = (templates ?? []).filter(
    (t) => (!subject || t.subject === subject) && (!needle || t.title.toLowerCase().includes(needle)),
  );
  const filtered = Boolean(status || subject || needle || includeArchived);

  const newButton = (
    <Button onClick={() => setCreating(true)}>
      <TemplateIcon size={18} />
      New template
    </Button>
  );

  return (
    <>
      <div className="toolbar">
        <div className="toolbar__filters" role="search" aria-label="Filter templates">
          <TextField label="Search by title" type="search" value={search} onChange={(e) => setSearch(e.currentTarget.value)} placeholder="e.g. Paper 1" />
          <SelectField label="Status" value={status} onChange={(e) => setStatus(e.currentTarget.value as "" | TemplateStatus)} options={statusOptions} />
          <SelectField
            label="Subject"
            value={subject}
            onChange={(e) => setSubject(e.currentTarget.value)}
            options={[{ value: "", label: "Any subject" }, ...subjects.map((s) => ({ value: s, label: s }))]}
          />
          <label className="checkbox">
            <input type="checkbox" checked={includeArchived} onChange={(e) => setIncludeArchived(e.currentTarget.checked)} />
            Show archived
          </label>
        </div>
        {newButton}
      </div>

      <QueryStates query={list} loading="Loading templates…" what="The templates">
        {() =>
          shown.length === 0 ? (
            filtered ? (
              <EmptyState icon={<TemplateIcon size={28} />} title="No templates match these filters">
                <p>Clear the search or choose another status or subject.</p>
              </EmptyState>
            ) : (
              <EmptyState icon={<TemplateIcon size={28} />} title="No exam templates yet">
                <p>A template is an exam paper with its questions and answer areas marked out. Create one to start marking.</p>
                <ol className="empty-state__steps">
                  <li>Choose <strong>New template</strong> and upload the paper as a PDF (or pick one from the catalogue).</li>
                  <li>Add the questions and their maximum marks.</li>
                  <li>Draw a box around each question’s answer area, save, and mark the template ready.</li>
                </ol>
                {newButton}
              </EmptyState>
            )
          ) : (
            <Table caption="Exam templates">
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col">Subject</th>
                  <th scope="col" className="numeric">Pages</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((template) => (
                  <tr key={template.id}>
                    <RowLink href={`/templates/${template.id}`} sub={template.exam_code}>
                      {template.title}
                    </RowLink>
                    <td>
                      <TemplateStatusBadge status={template.status} />
                    </td>
                    <td>{template.subject ?? <span className="table__muted">—</span>}</td>
                    <td className="numeric">{template.page_count ?? <span className="table__muted">—</span>}</td>
                    <td>
                      <time dateTime={template.updated_at.toISOString()}>{updatedFormat.format(template.updated_at)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </QueryStates>
      <NewTemplateDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
