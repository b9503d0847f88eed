import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { getResults } from "./batches";
import { renderResultsCsv, resultsCsvFileName, titledCsvFileName, titledFileName } from "./results-csv";
import { getResultsExport, renderExportCsv, renderExportXlsx } from "./results-export";

/**
 * The results' downloads (GET …/csv, …/export/csv, …/export/xlsx): the results read as the caller in a
 * transaction of their own, then rendered after it, so no connection waits on a workbook being written.
 * Each answers the file's content and the name it is downloaded under.
 */

interface ResultsRequest {
  batch_id: string;
  reveal_names: boolean;
}

/** The contract's CSV, named `batch-<id>.csv`, or `<title> - <yyyy-mm-dd>.csv` with name "title". */
export async function resultsCsvDownload(db: Db, callerId: string, input: ResultsRequest & { name?: "id" | "title" }) {
  const results = await asUser(db, callerId, (tx) => getResults(tx, callerId, { batch_id: input.batch_id, reveal_names: input.reveal_names }));
  return { csv: renderResultsCsv(results), fileName: input.name === "title" ? titledCsvFileName(results.batch) : resultsCsvFileName(input.batch_id) };
}

/** The teacher's export as CSV, named after the batch's title and date. */
export async function exportCsvDownload(db: Db, callerId: string, input: ResultsRequest) {
  const table = await asUser(db, callerId, (tx) => getResultsExport(tx, callerId, input));
  return { csv: renderExportCsv(table), fileName: titledFileName(table.batch, "csv") };
}

/** The teacher's export as an Excel workbook, named after the batch's title and date. */
export async function exportXlsxDownload(db: Db, callerId: string, input: ResultsRequest) {
  const table = await asUser(db, callerId, (tx) => getResultsExport(tx, callerId, input));
  return { bytes: await renderExportXlsx(table), fileName: titledFileName(table.batch, "xlsx") };
}
