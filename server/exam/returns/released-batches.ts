import { sql } from "drizzle-orm";
import { type Tx, rowsOf } from "../../db/client";

/** A released batch's heading, as its student may know it (exam_batches stays closed to students). */
interface ReleasedBatch {
  id: string;
  title: string;
  template_id: string;
  institute_id: string;
  released_at: string | Date;
  reviews_until: string | Date | null;
}

/** The caller's released batches (app.my_released_batches), by id; only `batchId`'s when given. */
export async function myReleasedBatches(tx: Tx, batchId?: string): Promise<Map<string, ReleasedBatch>> {
  const rows = rowsOf<ReleasedBatch>(
    await tx.execute(
      sql`SELECT id, title, template_id, institute_id, released_at, reviews_until FROM app.my_released_batches()${batchId === undefined ? sql`` : sql` WHERE id = ${batchId}`}`,
    ),
  );
  return new Map(rows.map((row) => [row.id, row]));
}
