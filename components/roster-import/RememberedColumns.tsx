"use client";

import { Status } from "@/components/ui/Status";
import { LocalDate } from "@/components/ui/dates";

/** Says that the columns are the ones the school chose for this header on an earlier import. */
export function RememberedColumns({ savedAt }: { savedAt: Date }) {
  return (
    <Status tone="info" role="status">
      Columns as you chose them on <LocalDate value={savedAt} />, for files with this header. Change them if this file is different.
    </Status>
  );
}
