import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { examPrintedScripts, examSubmissions } from "../../db/schema";
import { AppError } from "../../errors";
import { scriptLabel } from "../anonymity";
import { printedFor, visibleBatchTitles } from "./other-batch";
import type { ReadPile } from "./page-reading";
import { decodePageCode } from "./print-code";

/**
 * A single scan (POST /api/exam/batches/{id}/scans) checked before it is matched to one student (issue
 * 33, item 12): a whole class's pile dropped "In order" must not become one student's 80-page script.
 * Its pages are counted and their codes read by the pile's own reader (the imaging worker), and a scan
 * that is not one student's script is refused with what was found.
 */

/** What a single scan holds: its pages, and the Markbook codes read on them. */
export interface ScanContents {
  pageCount: number;
  /** Every valid Markbook page code read, in page order (pages without one are left out). */
  codes: { scanPage: number; batchCode: string; scriptNumber: number; page: number }[];
}

/**
 * A refusal after which the same file should be read as a pile instead (its pages cut into scripts by
 * their codes): the REST edge says so in the `Markbook-Upload-Instead: pile` header, and the scan intake
 * screen offers it in one click.
 */
export class ScanLooksLikePileError extends AppError {
  constructor(message: string) {
    super("invalid", message, "file");
  }
}

/** The header of a refusal whose file should go up as a pile (ScanLooksLikePileError). */
export const UPLOAD_INSTEAD_HEADER = "Markbook-Upload-Instead";

const isInvalidFileError = (error: unknown) => error instanceof AppError && error.code === "invalid";

const pages = (count: number) => `${count} ${count === 1 ? "page" : "pages"}`;

/**
 * Reads the scan's page count and codes with the pile reader. When it has more pages than the paper,
 * reading stops after the first page (the count is all the refusal needs). Null when the file cannot be
 * opened as a PDF: such a scan is taken as the contract always took it (its type and signature are
 * checked, docs/spec/classroom-api.md "Scan upload rules" 2 and 4), and only what can be read is refused.
 */
export async function readScanContents(bytes: Uint8Array, readPile: ReadPile, paperPages: number | null, maxPages: number): Promise<ScanContents | null> {
  const contents: ScanContents = { pageCount: 0, codes: [] };
  try {
    for await (const reading of readPile(bytes, { maxPages })) {
      contents.pageCount = reading.pileSize;
      if (paperPages !== null && reading.pileSize > paperPages) break;
      const decoded = reading.code === null ? null : decodePageCode(reading.code);
      if (decoded?.kind === "page") contents.codes.push({ scanPage: reading.pilePage, batchCode: decoded.batchCode, scriptNumber: decoded.scriptNumber, page: decoded.page });
    }
  } catch (error) {
    // The file itself could not be opened (damaged, not a PDF that pdf-lib reads): not this check's refusal.
    // Compared by name and code, not instanceof: in a production node the imaging port is set up by
    // server.ts, so its AppError is another module instance than this route bundle's.
    if (isInvalidFileError(error)) return null;
    throw error;
  }
  return contents;
}

/**
 * The checks that need no roster, as the caller, in order:
 * 1. more pages than the paper: a pile (ScanLooksLikePileError);
 * 2. a page printed for another batch: refused, naming that batch when the caller may see it;
 * 3. pages of several printed scripts of this batch: a pile (ScanLooksLikePileError).
 * Returns the one printed script the scan's codes name, if any.
 */
export async function refuseScanOfSeveralScripts(tx: Tx, contents: ScanContents, batch: { print_code: string | null }, paperPages: number | null): Promise<number | null> {
  if (paperPages !== null && contents.pageCount > paperPages) {
    const whole = contents.pageCount >= paperPages * 2 ? " It looks like a whole class's pile" : " It looks like more than one script";
    throw new ScanLooksLikePileError(
      `This scan has ${pages(contents.pageCount)}; the paper has ${paperPages}.${whole}: read it as a pile instead, and its pages are cut into scripts (by the codes printed on them, where they have them).`,
    );
  }
  const foreign = contents.codes.filter((code) => code.batchCode !== batch.print_code);
  if (foreign.length > 0) {
    const titles = await visibleBatchTitles(tx, foreign.map((code) => code.batchCode));
    const where = [...new Set(foreign.map((code) => printedFor(titles.get(code.batchCode))))];
    const which = foreign.length === contents.codes.length ? "its pages were" : `${pages(foreign.length)} of it were`;
    throw new AppError("invalid", `This scan was not printed for this batch: ${which} ${where.join(", and ")}. Upload it to the batch it was printed for.`, "file");
  }
  const scripts = [...new Set(contents.codes.map((code) => code.scriptNumber))].sort((a, b) => a - b);
  if (scripts.length > 1) {
    const named = scripts.length <= 5 ? ` (${scripts.map(scriptLabel).join(", ")})` : "";
    throw new ScanLooksLikePileError(
      `This scan has pages printed for ${scripts.length} different scripts${named}: it looks like several students' scripts in one file. Read it as a pile instead, and each page goes to its own script.`,
    );
  }
  return scripts[0] ?? null;
}

/**
 * In the upload's transaction, once its target is chosen: a scan whose codes name a printed script of
 * another student is refused (ScanLooksLikePileError: a pile files it by its codes). A spare copy's script
 * (no student yet) goes wherever it is matched. In an anonymous batch the students are their scripts'
 * numbers, never their names.
 */
export async function refuseScanOfAnotherStudent(
  tx: Tx,
  batch: { id: string; anonymous: boolean },
  scriptNumber: number,
  target: { id: string; student_name: string | null; script_number: number } | null,
) {
  const [printed] = await tx
    .select({ submission: examSubmissions })
    .from(examPrintedScripts)
    .innerJoin(examSubmissions, eq(examSubmissions.id, examPrintedScripts.submission_id))
    .where(and(eq(examPrintedScripts.batch_id, batch.id), eq(examPrintedScripts.script_number, scriptNumber)));
  const owner = printed?.submission;
  if (!owner || owner.student_id === null || owner.id === target?.id) return;
  const whose = batch.anonymous ? `${scriptLabel(owner.script_number)}` : `${owner.student_name ?? "another student"}'s script`;
  const instead = target === null ? "a new script without a student" : batch.anonymous ? scriptLabel(target.script_number) : (target.student_name ?? "another script");
  throw new ScanLooksLikePileError(
    `This scan's pages were printed for ${whose}, but it would go to ${instead}. Read it as a pile instead, and it goes where its codes say.`,
  );
}
