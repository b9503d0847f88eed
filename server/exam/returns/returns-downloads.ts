import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { asUser } from "../../db/rls";
import { type AnnotationGeometry, examSubmissions } from "../../db/schema";
import { AppError } from "../../errors";
import { batchNames, scriptLabel } from "../anonymity";
import { findVisibleBatch, rosterOrder } from "../batches";
import { titledFileName } from "../results-csv";
import type { CoverSheet, MarkedAnnotation, MarkedScriptDocument } from "./marked-pdf/document";
import { markedPdfLimits } from "./marked-pdf/document";
import { markedPdfWorker, markedScriptsZip, zipEntryName } from "./marked-pdf/index";
import { annotationOf, loadCoverSheetForStaff, loadMarkedScriptForStaff } from "./marked-pdf/load";
import { getMyScript, openMyScriptScan, scriptIdInput } from "./student-scripts";

/**
 * The marked scripts as files (issue 35, items 4 and 5): one script's PDF, the batch's zip of them and
 * its feedback sheets for staff, and the student's own script's PDF. Staff's files are read as the
 * caller (loadMarkedScriptForStaff): whoever may read the batch's results may download them (the results
 * CSV's rule), and a student, who reads no batch, gets 404. The student's PDF is built from their own
 * read model (readMarkedScript) and scan, under their row-level security: 404 for anything but their own
 * released script. Every PDF is made in the marked-PDF worker.
 */

export interface PdfFile {
  bytes: Uint8Array;
  fileName: string;
}

/** A file name from words: the characters file systems refuse removed, ".pdf" (zipEntryName's rules). */
const pdfName = (...words: string[]) => zipEntryName(words.filter((word) => word.trim() !== "").join(" - "), new Set());

/** One script's marked PDF for staff: cover, scan and annotations; an anonymous batch's as "Script 17". */
export async function staffMarkedPdf(db: Db, callerId: string, submissionId: string): Promise<PdfFile> {
  const document = await loadMarkedScriptForStaff(db, callerId, submissionId);
  return { bytes: await markedPdfWorker().script(document), fileName: pdfName(document.who, document.batchTitle) };
}

/**
 * The batch's submissions in the class list's order (the results table's: by name, or by script number
 * where names are hidden, as in every anonymous batch here: the order would otherwise tell who is who).
 * `scanned`: only those with a scan (the zip); otherwise every student's but those explicitly marked
 * absent (a student not yet scanned gets a sheet with no marks: the teacher sees who is missing).
 */
async function classList(db: Db, callerId: string, batchId: string, scanned: boolean) {
  return asUser(db, callerId, async (tx) => {
    const batch = await findVisibleBatch(tx, batchId);
    const rows = await tx
      .select({ id: examSubmissions.id })
      .from(examSubmissions)
      .where(
        and(
          eq(examSubmissions.batch_id, batch.id),
          isNotNull(examSubmissions.student_id),
          scanned ? isNotNull(examSubmissions.scan_file_id) : isNull(examSubmissions.absence_marked_at),
        ),
      )
      .orderBy(...rosterOrder(batchNames(batch)));
    if (rows.length > markedPdfLimits.students) {
      throw new AppError("invalid", `This batch has ${rows.length} students; one download holds at most ${markedPdfLimits.students}.`);
    }
    return { batch, ids: rows.map((row) => row.id) };
  });
}

const isNotFound = (error: unknown) => error instanceof AppError && error.code === "not_found";

/**
 * The batch's marked scripts, one PDF per student with a scan, as a zip streamed while it is made
 * (markedScriptsZip): each script is read only when the zip wants it. A script deleted or unscanned
 * meanwhile is left out.
 */
export async function staffMarkedZip(db: Db, callerId: string, batchId: string): Promise<{ stream: ReadableStream<Uint8Array>; fileName: string }> {
  const { batch, ids } = await classList(db, callerId, batchId, true);
  if (ids.length === 0) throw new AppError("conflict", "No script of this batch has been scanned yet, so there are no marked scripts to download.");
  async function* documents(): AsyncGenerator<MarkedScriptDocument> {
    for (const id of ids) {
      try {
        yield await loadMarkedScriptForStaff(db, callerId, id);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
  return { stream: markedScriptsZip(documents()), fileName: titledFileName({ title: `${batch.title} - marked scripts`, created_at: batch.created_at }, "zip") };
}

/** Feedback on paper (item 5): every student's cover sheet, one after the other in the class list's order, as one PDF. */
export async function staffFeedbackSheets(db: Db, callerId: string, batchId: string): Promise<PdfFile> {
  const { batch, ids } = await classList(db, callerId, batchId, false);
  if (ids.length === 0) throw new AppError("conflict", "This batch has no students to make feedback sheets for.");
  const sheets: CoverSheet[] = [];
  for (const id of ids) {
    try {
      sheets.push(await loadCoverSheetForStaff(db, callerId, id));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  const bytes = await markedPdfWorker().classFeedback(sheets, `${batch.title}: feedback`);
  return { bytes, fileName: titledFileName({ title: `${batch.title} - feedback sheets`, created_at: batch.created_at }, "pdf") };
}

/**
 * The student's own released script as a marked PDF: their read model (marks, comments, rubric items,
 * the first marking's annotations, what to revise, as named on their page) and their scan, both under
 * their row-level security. The scan's page N is taken as the paper's page N, as the student's page
 * shows it. Another student's, an unreleased, withdrawn or other school's script, or one without a
 * scan: 404 "Script not found".
 */
export async function myMarkedPdf(db: Db, callerId: string, submissionId: string): Promise<PdfFile> {
  const { submission_id: id } = scriptIdInput.parse({ submission_id: submissionId });
  const script = await getMyScript(db, callerId, id);
  const scan = await openMyScriptScan(db, callerId, id);
  const scanBytes = new Uint8Array(await new Response(scan.body).arrayBuffer());
  // The student's own name, from their own row (readable to them); the read model names nobody.
  const [row] = await asUser(db, callerId, (tx) =>
    tx
      .select({ name: examSubmissions.student_name, number: examSubmissions.script_number })
      .from(examSubmissions)
      .where(and(eq(examSubmissions.id, id), sql`${examSubmissions.id} IN (SELECT app.my_released_submission_ids())`)),
  );
  const who = row?.name?.trim() || (row ? scriptLabel(row.number) : "Script");
  const annotations = script.pages
    .map((page) => ({
      page: page.page,
      shapes: page.annotations.map((annotation) => annotationOf({ ...annotation, geometry: annotation.geometry as AnnotationGeometry })).filter((shape): shape is MarkedAnnotation => shape !== null),
    }))
    .filter((page) => page.shapes.length > 0);
  const document: MarkedScriptDocument = {
    who,
    batchTitle: script.batch_title,
    paperTitle: script.paper_title,
    questions: script.questions.map((question) => ({
      label: question.label,
      max: question.max_marks,
      awarded: question.awarded_marks,
      comment: question.comment,
      rubricItems: question.rubric_items.map((item) => item.text),
      responseAreas: question.areas,
    })),
    total: { awarded: script.total_awarded, max: script.total_available },
    revise: script.what_to_revise.map((point) => ({ name: point.name, lost: point.marks_lost, available: point.marks_available })),
    scan: scanBytes,
    annotations,
  };
  return { bytes: await markedPdfWorker().script(document), fileName: pdfName(script.paper_title, script.batch_title) };
}
