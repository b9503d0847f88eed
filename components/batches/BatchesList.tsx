"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { BatchIcon } from "@/components/ui/icons";
import { RowLink, Table } from "@/components/ui/Table";
import { QueryStates } from "@/components/ui/QueryStates";
import { useTRPC } from "@/components/trpc/client";
import { NewBatchDialog } from "./NewBatchDialog";
import { LocalDate } from "@/components/ui/dates";
import { BatchProgressBar } from "./ProgressBar";


/** The caller's batches, newest first, with progress; the archived toggle and "New batch". */
export function BatchesList() {
  const trpc = useTRPC();
  const [includeArchived, setIncludeArchived] = useState(false);
  const [creating, setCreating] = useState(false);
  const list = useQuery({ ...trpc.exam.batches.overview.queryOptions({ include_archived: includeArchived }), refetchInterval: 10_000 });
  const batches = list.data?.batches ?? [];

  const newButton = (
    <Button onClick={() => setCreating(true)}>
      <BatchIcon size={18} />
      New batch
    </Button>
  );

  return (
    <>
      <div className="toolbar">
        <div className="toolbar__filters">
          <label className="checkbox">
            <input type="checkbox" checked={includeArchived} onChange={(e) => setIncludeArchived(e.currentTarget.checked)} />
            Show archived
          </label>
        </div>
        {newButton}
      </div>
      <QueryStates query={list} loading="Loading batches…" what="The batches">
        {() =>
          batches.length === 0 ? (
            <EmptyState icon={<BatchIcon size={28} />} title={includeArchived ? "No batches, archived or open" : "No marking batches yet"}>
              <p>A marking batch is one class&apos;s scripts for one exam template.</p>
              <ol className="empty-state__steps">
                <li>Choose <strong>New batch</strong>, pick a ready template and your class.</li>
                <li>Upload the scanned scripts; they are matched to students.</li>
                <li>Mark by keyboard, then download the results.</li>
              </ol>
              {newButton}
            </EmptyState>
          ) : (
            <Table caption="Marking batches">
              <thead>
                <tr>
                  <th scope="col">Batch</th>
                  <th scope="col">Class</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {batches.map((batch) => (
                  <tr key={batch.id}>
                    <RowLink href={`/batches/${batch.id}`} sub={batch.template_title !== batch.title ? batch.template_title : null}>
                      {batch.title}
                    </RowLink>
                    <td>{batch.class_name ?? <span className="table__muted">No class</span>}</td>
                    <td className="batch-list__progress">
                      <BatchProgressBar states={batch.states} />
                    </td>
                    <td>
                      <Badge tone={batch.status === "open" ? "success" : "neutral"}>{batch.status === "open" ? "Open" : "Archived"}</Badge>
                    </td>
                    <td>
                      <LocalDate value={batch.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </QueryStates>
      <NewBatchDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
