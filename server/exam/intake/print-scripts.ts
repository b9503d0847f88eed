import { and, asc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import { z } from "zod";
import type { Db, Tx } from "../../db/client";
import { UNIQUE_VIOLATION, postgresErrorCode } from "../../postgres-errors";
import { asUser } from "../../db/rls";
import { examBatches, examPrintedScripts, examQuestions, examResponseAreas, examSubmissions, examTemplates, files } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { openBatchFor } from "../batch-gate";
import { findVisibleBatch } from "../batches";
import { attachmentDisposition, fileNameTitle } from "../results-csv";
import { integer } from "../../../lib/rules/input-rules";
import { logger } from "../../logger";
import { objectStorage } from "../../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound, readObjectBytes } from "../../storage/object-storage";
import { MAX_SCRIPT_NUMBER, newBatchCode } from "./print-code";
import { intakeImaging } from "./imaging-port";
import { CORRECTIONS_CONVENTION } from "../ticks/convention";
import { type PagePlacement, type PageRect, type PageSize, placeStamps } from "./stamp";

/**
 * "Print scripts": one PDF of a batch's scripts, every page stamped with its QR code (stamp.ts). Each
 * student of the roster gets a script number at their first print and keeps it (a reprint of a lost
 * script carries the same codes); spare copies, printed for nobody, take new numbers after the
 * largest. Numbers are never reused, so a code read off any page ever printed names one script.
 */

const MAX_SPARE_COPIES = 100;
/** Scripts in one print (a year group's worth): a clear 400 beyond, rather than a PDF nobody can open. */
export const MAX_SCRIPTS_PER_PRINT = 2000;
const SPARE_HEADING = "Spare copy";

export const printScriptsBody = z.object({
  spare_copies: integer({ min: 0, max: MAX_SPARE_COPIES })
    .default(0)
    .describe(`Copies printed for nobody (0–${MAX_SPARE_COPIES}), identified after the scan`),
  submission_ids: z
    .array(z.uuid("must be submission ids"))
    .min(1, "must name at least one submission (leave it out to print the whole roster)")
    .max(MAX_SCRIPTS_PER_PRINT, `must name at most ${MAX_SCRIPTS_PER_PRINT} submissions`)
    .optional()
    .describe("Print only these students' scripts (a reprint keeps their numbers); the whole roster when left out"),
});
export type PrintScriptsRequest = z.input<typeof printScriptsBody>;

/** A place on the paper a stamp must not cover: an answer area (with its question's label) or the name box (label null). */
interface KeptClear extends PageRect {
  label: string | null;
}

export const printWarningOutput = z.object({
  page: z.number().int(),
  /** Labels of the questions whose answer areas the stamp covers on that page. */
  questions: z.array(z.string()),
  /** Whether it covers the name box. */
  name_box: z.boolean(),
});

export const printPreviewOutput = z.object({
  batch_id: z.uuid(),
  /** Students of the roster, each printed once. */
  students: z.number().int(),
  pages_per_script: z.number().int().nullable(),
  /** Spare copies printed for this batch so far. */
  spare_copies_printed: z.number().int(),
  /** Pages whose stamp has to cover something: no corner of the page is clear. */
  warnings: z.array(printWarningOutput),
  /** Why this caller cannot print the batch (in words for them), or null when they can. */
  cannot_print: z.string().nullable(),
});

type BatchRow = typeof examBatches.$inferSelect;
type TemplateRow = typeof examTemplates.$inferSelect;

/** The print's refusals, in order: the batch gate (print_scripts: the owner, 403; open and not signed off, 409), a paper with a PDF (409). */
async function printRefusal(tx: Tx, callerId: string, batch: BatchRow, paper: PaperToPrint): Promise<AppError | null> {
  try {
    await openBatchFor(tx, callerId, batch, "print_scripts");
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  if (!paper.file) return new AppError("conflict", NO_PDF);
  return null;
}

const NO_PDF = "This paper has no PDF to print: add the paper's PDF to its template first";

interface PaperToPrint {
  template: TemplateRow;
  /** The paper's PDF in storage; null when the template has none. */
  file: { bucket: string; key: string } | null;
  keepClear: KeptClear[];
  /** Whether any answer area holds tick boxes: then each script's first page carries the corrections convention. */
  hasTickBoxes: boolean;
}

/** The batch's template, its paper file and the places the stamps keep clear of. */
export async function readPaper(tx: Tx, batch: Pick<BatchRow, "template_id">): Promise<PaperToPrint> {
  const [row] = await tx
    .select({ template: examTemplates, bucket: files.bucket, key: files.storage_key })
    .from(examTemplates)
    .leftJoin(files, eq(files.id, examTemplates.source_file_id))
    .where(eq(examTemplates.id, batch.template_id));
  // A batch's template is visible wherever the batch is (same institute).
  if (!row) throw notFound("Template");
  const rows = await tx
    .select({ page: examResponseAreas.page, x: examResponseAreas.x, y: examResponseAreas.y, width: examResponseAreas.width, height: examResponseAreas.height, label: examQuestions.label, tick_boxes: examResponseAreas.tick_boxes })
    .from(examResponseAreas)
    .innerJoin(examQuestions, eq(examQuestions.id, examResponseAreas.question_id))
    .where(eq(examResponseAreas.template_id, batch.template_id))
    .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y));
  const nameBox = row.template.name_box;
  const areas = rows.map(({ tick_boxes: _boxes, ...area }) => area);
  return {
    template: row.template,
    file: row.bucket && row.key ? { bucket: row.bucket, key: row.key } : null,
    keepClear: nameBox ? [...areas, { ...nameBox, label: null }] : areas,
    hasTickBoxes: rows.some((area) => (area.tick_boxes?.length ?? 0) > 0),
  };
}

export async function readPaperBytes(storage: ObjectStorage, file: { bucket: string; key: string }): Promise<Uint8Array> {
  try {
    return await readObjectBytes(storage, file.bucket, file.key);
  } catch (error) {
    if (isObjectNotFound(error)) throw new AppError("conflict", "This paper's PDF is missing from storage: upload the paper's PDF to its template again");
    logger.error("paper read failed", error);
    throw new AppError("upstream", "The paper could not be read from storage; try again");
  }
}

export async function pageSizes(paper: Uint8Array): Promise<PageSize[]> {
  try {
    const document = await PDFDocument.load(paper, { updateMetadata: false });
    return document.getPages().map((page) => page.getSize());
  } catch {
    throw new AppError("conflict", "This paper's PDF cannot be read: upload the paper's PDF to its template again");
  }
}

/** Pages whose stamp covers an answer area or the name box, with what it covers. */
function warningsOf(placements: PagePlacement<KeptClear>[]): z.output<typeof printWarningOutput>[] {
  return placements
    .filter((placement) => placement.overlaps.length > 0)
    .map(({ page, overlaps }) => ({
      page,
      questions: [...new Set(overlaps.flatMap((area) => (area.label === null ? [] : [area.label])))],
      name_box: overlaps.some((area) => area.label === null),
    }));
}

/** Submissions of the batch that belong to a student (the roster), in roster order: name, then id. */
async function rosterOf(tx: Tx, batchId: string) {
  return tx
    .select({ id: examSubmissions.id, student_name: examSubmissions.student_name, script_number: examSubmissions.script_number })
    .from(examSubmissions)
    .where(and(eq(examSubmissions.batch_id, batchId), isNotNull(examSubmissions.student_id)))
    .orderBy(asc(examSubmissions.student_name), asc(examSubmissions.id));
}

/**
 * The print dialog's facts: students, pages per script, spare copies printed so far, the pages whose
 * stamp covers an area, and why the caller cannot print (null when they can). Any staff member who
 * can see the batch reads it (404 otherwise).
 */
export async function printPreview(db: Db, callerId: string, batchId: string, options: { storage?: ObjectStorage } = {}) {
  const facts = await asUser(db, callerId, async (tx) => {
    const batch = await findVisibleBatch(tx, batchId);
    const paper = await readPaper(tx, batch);
    const roster = await rosterOf(tx, batchId);
    const [spares] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(examPrintedScripts)
      .where(and(eq(examPrintedScripts.batch_id, batchId), sql`${examPrintedScripts.submission_id} is null`));
    return { batch, paper, students: roster.length, spares: Number(spares?.count ?? 0), refusal: await printRefusal(tx, callerId, batch, paper) };
  });
  const { file, keepClear } = facts.paper;
  let sizes: PageSize[] | null = null;
  let unreadable: string | null = null;
  try {
    if (file) sizes = await pageSizes(await readPaperBytes(options.storage ?? objectStorage(), file));
  } catch (error) {
    // A paper missing from storage or damaged: the dialog says so instead of failing to open.
    if (!(error instanceof AppError) || error.code !== "conflict") throw error;
    unreadable = error.message;
  }
  return {
    batch_id: facts.batch.id,
    students: facts.students,
    pages_per_script: sizes?.length ?? facts.paper.template.page_count,
    spare_copies_printed: facts.spares,
    warnings: sizes ? warningsOf(placeStamps(sizes, keepClear)) : [],
    cannot_print: facts.refusal?.message ?? unreadable,
  } satisfies z.output<typeof printPreviewOutput>;
}

export interface PrintedScripts {
  pdf: Uint8Array;
  fileName: string;
  batchCode: string;
  students: number;
  spareCopies: number;
  pagesPerScript: number;
  warnings: z.output<typeof printWarningOutput>[];
}

/**
 * Prints a batch's scripts, as the caller (row-level security): the batch visible (404), the caller its
 * owner (403), open (409), its paper with a PDF (409). In one transaction, with the batch locked so two
 * prints number one after the other: the batch's code at its first print, a script number for each
 * student printed who has none (roster order), new numbers for the spare copies. Then the paper is read
 * from storage and stamped.
 */
export async function printScripts(db: Db, callerId: string, batchId: string, request: PrintScriptsRequest, options: { storage?: ObjectStorage } = {}): Promise<PrintedScripts> {
  const body = printScriptsBody.parse(request);
  const plan = await asUser(db, callerId, async (tx) => {
    const visible = await findVisibleBatch(tx, batchId);
    const paper = await readPaper(tx, visible);
    const refusal = await printRefusal(tx, callerId, visible, paper);
    if (refusal) throw refusal;
    // After the owner check: under row-level security FOR UPDATE sees only rows the caller may update.
    const [batch] = await tx.select().from(examBatches).where(eq(examBatches.id, batchId)).for("update");
    const batchCode = batch!.print_code ?? (await giveBatchCode(tx, batchId));
    const students = await studentsToPrint(tx, batchId, body.submission_ids);
    if (students.length + body.spare_copies === 0) {
      throw new AppError("invalid", "Spare copies: this batch has no students to print for, so ask for at least one spare copy", "spare_copies");
    }
    if (students.length + body.spare_copies > MAX_SCRIPTS_PER_PRINT) {
      throw new AppError("invalid", `A print holds at most ${MAX_SCRIPTS_PER_PRINT} scripts: print the students in smaller groups`, "submission_ids");
    }
    // An anonymous batch's scripts carry no name: its markers see every page (issue 32).
    const scripts = await numberScripts(tx, batchId, students, body.spare_copies, { anonymous: batch!.anonymous });
    return { batch: batch!, batchCode, paper, scripts, students: students.length };
  });
  const paperBytes = await readPaperBytes(options.storage ?? objectStorage(), plan.paper.file!);
  await pageSizes(paperBytes); // a paper that cannot be read is the teacher's 409, not a 500 from the stamping
  // In the imaging worker: a class set is about a second of CPU the app thread does not give up.
  // A paper with tick boxes: how to tick and how to correct, on each script's first page (clear of every area and the name box).
  const stamped = await intakeImaging().stamp(paperBytes, plan.batchCode, plan.scripts, plan.paper.keepClear, { firstPageNote: plan.paper.hasTickBoxes ? CORRECTIONS_CONVENTION : null });
  return {
    pdf: stamped.pdf,
    fileName: `${fileNameTitle(plan.batch.title, "Batch")} - scripts.pdf`,
    batchCode: plan.batchCode,
    students: plan.students,
    spareCopies: body.spare_copies,
    pagesPerScript: stamped.placements.length,
    warnings: warningsOf(stamped.placements as PagePlacement<KeptClear>[]),
  };
}

/** The batch's code for its QR codes: fresh, retried in a savepoint should another batch hold it already. */
async function giveBatchCode(tx: Tx, batchId: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = newBatchCode();
    try {
      // Never replaces a code already given: the pages printed with it must keep reading as this batch's.
      const given = await tx.transaction((savepoint) =>
        savepoint.update(examBatches).set({ print_code: code }).where(and(eq(examBatches.id, batchId), isNull(examBatches.print_code))).returning({ code: examBatches.print_code }),
      );
      if (given[0]?.code) return given[0].code;
      const [kept] = await tx.select({ code: examBatches.print_code }).from(examBatches).where(eq(examBatches.id, batchId));
      return kept!.code!;
    } catch (error) {
      if (postgresErrorCode(error) !== UNIQUE_VIOLATION) throw error;
    }
  }
  throw new AppError("internal", "The batch could not be given a print code; try again");
}

/** The roster, or the named submissions of it (a 400 naming one that is not a student's submission of this batch). */
async function studentsToPrint(tx: Tx, batchId: string, submissionIds: string[] | undefined) {
  const roster = await rosterOf(tx, batchId);
  if (!submissionIds) return roster;
  const wanted = new Set(submissionIds.map((id) => id.toLowerCase()));
  const chosen = roster.filter((submission) => wanted.has(submission.id));
  if (chosen.length < wanted.size) {
    const known = new Set(chosen.map((submission) => submission.id));
    const unknown = [...wanted].find((id) => !known.has(id));
    throw new AppError("invalid", `Submissions: ${unknown} is not a student's script of this batch`, "submission_ids");
  }
  return chosen;
}

interface Student {
  id: string;
  student_name: string | null;
  script_number: number;
}

/**
 * Script numbers: a student's script carries its submission's number (exam_submissions.script_number),
 * so the paper and the screen say the same "Script 17"; spare copies take the batch's next numbers.
 * The stamp's first line is the student's name ("Spare copy" for a spare), except in an anonymous
 * batch, where it is left out: script number, page and code only.
 */
async function numberScripts(tx: Tx, batchId: string, students: Student[], spareCopies: number, { anonymous }: { anonymous: boolean }) {
  const printed = await tx
    .select({ script_number: examPrintedScripts.script_number, submission_id: examPrintedScripts.submission_id })
    .from(examPrintedScripts)
    .where(eq(examPrintedScripts.batch_id, batchId));
  const numberOf = new Map(printed.flatMap((row) => (row.submission_id ? [[row.submission_id, row.script_number] as const] : [])));
  const newRows: (typeof examPrintedScripts.$inferInsert)[] = [];
  const scripts = students.map((student) => {
    let scriptNumber = numberOf.get(student.id);
    if (scriptNumber === undefined) {
      scriptNumber = student.script_number;
      newRows.push({ batch_id: batchId, script_number: scriptNumber, submission_id: student.id });
    }
    return { scriptNumber, heading: anonymous ? null : (student.student_name ?? "Student") };
  });
  if (spareCopies > 0) {
    const [counter] = await tx
      .update(examBatches)
      .set({ next_script_number: sql`${examBatches.next_script_number} + ${spareCopies}` })
      .where(eq(examBatches.id, batchId))
      .returning({ next: examBatches.next_script_number });
    const last = counter!.next - 1;
    if (last > MAX_SCRIPT_NUMBER) {
      throw new AppError("conflict", `This batch has used all of its ${MAX_SCRIPT_NUMBER} script numbers: start a new batch to print more`);
    }
    for (let scriptNumber = last - spareCopies + 1; scriptNumber <= last; scriptNumber++) {
      newRows.push({ batch_id: batchId, script_number: scriptNumber, submission_id: null });
      scripts.push({ scriptNumber, heading: anonymous ? null : SPARE_HEADING });
    }
  }
  if (newRows.length > 0) await tx.insert(examPrintedScripts).values(newRows);
  const reprinted = students.map((student) => student.id).filter((id) => numberOf.has(id));
  if (reprinted.length > 0) {
    await tx.update(examPrintedScripts).set({ printed_at: new Date() }).where(and(eq(examPrintedScripts.batch_id, batchId), inArray(examPrintedScripts.submission_id, reprinted)));
  }
  return scripts;
}

/** The HTTP reply of a print: the PDF as a download named after the batch. */
export function printedScriptsResponse(printed: PrintedScripts): Response {
  return new Response(Buffer.from(printed.pdf), {
    headers: {
      "content-type": "application/pdf",
      "content-disposition": attachmentDisposition(printed.fileName),
      "cache-control": "no-store",
    },
  });
}
