import { inArray } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { examBatches } from "../../db/schema";
import { decodePageCode } from "./print-code";

/**
 * Pages printed for another batch, in the teacher's words (issue 33, item 13): the batch is named when
 * the reader may see it (row-level security decides: the school's staff see its batches), and a batch
 * the reader cannot see is never named, nor is anything said of its school.
 */

/** The batch code of a page code read off a scanned page, or null when it is not a valid Markbook page code. */
export function batchCodeOf(code: string | null): string | null {
  if (code === null) return null;
  const decoded = decodePageCode(code);
  return decoded.kind === "page" ? decoded.batchCode : null;
}

/** The titles of the batches that printed these codes and that the caller may see: batch code → title. Run as the caller. */
export async function visibleBatchTitles(tx: Tx, batchCodes: Iterable<string>): Promise<Map<string, string>> {
  const codes = [...new Set(batchCodes)];
  if (codes.length === 0) return new Map();
  const rows = await tx.select({ print_code: examBatches.print_code, title: examBatches.title }).from(examBatches).where(inArray(examBatches.print_code, codes));
  return new Map(rows.map((row) => [row.print_code!, row.title]));
}

/** Where a foreign page was printed: "another batch, “Year 10 Mock”", or a batch not in this school's Markbook. */
export const printedFor = (title: string | undefined) => (title === undefined ? "printed for a batch that is not in this school's Markbook" : `printed for another batch, “${title}”`);
