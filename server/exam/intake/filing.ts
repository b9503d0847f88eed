import { and, eq, inArray } from "drizzle-orm";
import type { Db, Tx } from "../../db/client";
import { asService } from "../../db/rls";
import { examBatches, examPrintedScripts, examScanPages, examScanPiles, examSubmissions, examTemplates } from "../../db/schema";
import { AppError } from "../../errors";
import type { ObjectStorage } from "../../storage/object-storage";
import { type PlannedPlacement, notAPageOfPaper, planFiling } from "./filing-plan";
import type { AssembleScript } from "./page-reading";
import { PRINT_CODE_FORMAT } from "./print-code";
import { rebuildSubmissionScan, withStoredObjects } from "./script-pdf";
import { queueAnswerReading } from "../answer-reading-queue";

/** The QR code a printed script's submission carries: the page codes' common part. */
const scriptCode = (batchCode: string, scriptNumber: number) => `${PRINT_CODE_FORMAT}:${batchCode}:${scriptNumber}`;

export const pileName = (pile: { original_name: string | null }) => pile.original_name ?? "an unnamed pile";

/**
 * The filing half of a pile's job, as the service, in one transaction with the batch locked (two piles
 * of one batch file one after the other): every page still `reading` is placed by planFiling, the
 * submissions that gained pages are rebuilt, and the pile is done. A failure leaves every page
 * `reading`, so the next run files them all again.
 */
export async function fileReadPages(db: Db, pileId: string, assembleScript: AssembleScript, options: { storage: ObjectStorage; bucket: string }) {
  await asService(db, (tx) => tx.update(examScanPiles).set({ status: "filing" }).where(eq(examScanPiles.id, pileId)));
  await withStoredObjects(options.storage, (stored) =>
    asService(db, async (tx) => {
      const [pile] = await tx.select().from(examScanPiles).where(eq(examScanPiles.id, pileId));
      if (!pile) throw new AppError("not_found", "The pile has been removed");
      const [batch] = await tx.select().from(examBatches).where(eq(examBatches.id, pile.batch_id)).for("update");
      const [template] = await tx.select({ page_count: examTemplates.page_count }).from(examTemplates).where(eq(examTemplates.id, batch!.template_id));

      const touched = await placePilePages(tx, pile, batch!, template?.page_count ?? null);
      const rebuilt: string[] = [];
      for (const submissionId of touched) {
        const submission = await rebuildSubmissionScan(tx, submissionId, { assembleScript, stored, bucket: options.bucket, instituteId: batch!.institute_id, ownerId: pile.uploaded_by });
        if (submission) rebuilt.push(submission.id);
      }
      // The scripts that gained pages are read for their answers (server/exam/answers/read-job.ts).
      await queueAnswerReading(tx, batch!, rebuilt);
      await tx
        .update(examScanPiles)
        .set({ status: "done", finished_at: new Date(), page_count: pile.page_count ?? 0, failure: null })
        .where(eq(examScanPiles.id, pileId));
    }),
  );
}

type Pile = typeof examScanPiles.$inferSelect;
type Batch = typeof examBatches.$inferSelect;

/** Applies the plan to the pile's `reading` pages; returns the submissions that gained pages. */
async function placePilePages(tx: Tx, pile: Pile, batch: Batch, pageCount: number | null): Promise<Set<string>> {
  const printed = await tx
    .select({ script: examPrintedScripts, submission: examSubmissions })
    .from(examPrintedScripts)
    .leftJoin(examSubmissions, eq(examSubmissions.id, examPrintedScripts.submission_id))
    .where(eq(examPrintedScripts.batch_id, batch.id));
  const submissionOfScript = new Map<number, string>();
  for (const { script, submission } of printed) if (submission) submissionOfScript.set(script.script_number, submission.id);
  // A spare copy identified as a student's has no submission of its own any more: its script's later
  // pages go where its earlier pages are.
  const unattached = printed.filter(({ submission }) => !submission).map(({ script }) => script.script_number);
  if (unattached.length) {
    const found = await tx
      .selectDistinct({ script_number: examScanPages.script_number, submission_id: examScanPages.submission_id })
      .from(examScanPages)
      .where(and(eq(examScanPages.batch_id, batch.id), eq(examScanPages.placement, "filed"), inArray(examScanPages.script_number, unattached)));
    for (const page of found) if (!submissionOfScript.has(page.script_number!)) submissionOfScript.set(page.script_number!, page.submission_id!);
  }

  // The positions held in each submission, one map per submission shared by the scripts filed in it.
  const heldIn = new Map<string, Map<number, string>>([...submissionOfScript.values()].map((id) => [id, new Map()]));
  const filed = heldIn.size
    ? await tx
        .select({ id: examScanPages.id, submission_id: examScanPages.submission_id, page_number: examScanPages.page_number })
        .from(examScanPages)
        .where(and(eq(examScanPages.placement, "filed"), inArray(examScanPages.submission_id, [...heldIn.keys()])))
    : [];
  for (const page of filed) heldIn.get(page.submission_id!)!.set(page.page_number!, page.id);
  const taken = new Map([...submissionOfScript].map(([script, submissionId]) => [script, heldIn.get(submissionId)!]));
  // A scan uploaded on its own (POST /scans) has no pile pages: the pile never replaces it.
  const scripts = new Map(
    printed.map(({ script, submission }) => [script.script_number, { scannedSeparately: submission?.scan_url != null && taken.get(script.script_number)!.size === 0 }]),
  );

  const readings = await tx
    .select({ pageId: examScanPages.id, pilePage: examScanPages.pile_page, code: examScanPages.code })
    .from(examScanPages)
    .where(and(eq(examScanPages.pile_id, pile.id), eq(examScanPages.placement, "reading")));
  const plan = planFiling(readings, { batchCode: batch.print_code, scripts }, taken, pageCount);

  const notes = await duplicateNotes(tx, plan, pageCount);
  const newScripts = new Map<number, string>();
  const touched = new Set<string>();
  // A spare copy's script keeps its printed number; a script cut from pages without a code takes the next.
  const newSubmission = async (qrCode: string | null, scriptNumber?: number) => {
    const [created] = await tx
      .insert(examSubmissions)
      .values({ batch_id: batch.id, student_id: null, student_name: null, status: "unmatched", matching_method: "qr", qr_code: qrCode, script_number: scriptNumber })
      .returning({ id: examSubmissions.id });
    return created!.id;
  };

  for (const placement of plan) {
    const printedAs = { script_number: placement.scriptNumber, printed_page: placement.printedPage, updated_at: new Date() };
    if (placement.placement === "filed") {
      const { target } = placement;
      let submissionId: string;
      if (target.kind === "new") {
        submissionId = newScripts.get(target.index) ?? (await newSubmission(null));
        newScripts.set(target.index, submissionId);
      } else {
        const existing = submissionOfScript.get(target.scriptNumber);
        if (existing) submissionId = existing;
        else {
          // A spare copy's first page: its script becomes a submission to identify.
          submissionId = await newSubmission(scriptCode(batch.print_code!, target.scriptNumber), target.scriptNumber);
          await tx
            .update(examPrintedScripts)
            .set({ submission_id: submissionId })
            .where(and(eq(examPrintedScripts.batch_id, batch.id), eq(examPrintedScripts.script_number, target.scriptNumber)));
          submissionOfScript.set(target.scriptNumber, submissionId);
        }
        if (!touched.has(submissionId)) {
          await tx.update(examSubmissions).set({ qr_code: scriptCode(batch.print_code!, target.scriptNumber) }).where(eq(examSubmissions.id, submissionId));
        }
      }
      touched.add(submissionId);
      await tx
        .update(examScanPages)
        .set({ ...printedAs, placement: "filed", submission_id: submissionId, page_number: placement.position, note: null })
        .where(eq(examScanPages.id, placement.pageId));
    } else {
      const duplicateOf = placement.placement === "duplicate" ? placement.duplicateOf : null;
      await tx
        .update(examScanPages)
        .set({ ...printedAs, placement: placement.placement, duplicate_of: duplicateOf, note: notes(placement) })
        .where(eq(examScanPages.id, placement.pageId));
    }
  }
  return touched;
}

/** The teacher's words for a page set aside: where its kept twin is, or why it was refused. */
async function duplicateNotes(tx: Tx, plan: PlannedPlacement[], pageCount: number | null) {
  const keptIds = plan.flatMap((placement) => (placement.placement === "duplicate" && placement.duplicateOf ? [placement.duplicateOf] : []));
  const kept = keptIds.length
    ? await tx
        .select({ id: examScanPages.id, pile_page: examScanPages.pile_page, original_name: examScanPiles.original_name })
        .from(examScanPages)
        .innerJoin(examScanPiles, eq(examScanPiles.id, examScanPages.pile_id))
        .where(inArray(examScanPages.id, keptIds))
    : [];
  const keptById = new Map(kept.map((page) => [page.id, page]));
  return (placement: PlannedPlacement): string | null => {
    if (placement.placement === "refused") {
      if (placement.reason === "beyond-paper") return `${notAPageOfPaper(placement.printedPage!, pageCount)}: not filed`;
      return placement.reason === "other-batch" ? "Printed for another batch: not filed" : `Script ${placement.scriptNumber} was never printed for this batch`;
    }
    if (placement.placement !== "duplicate") return null;
    if (placement.reason === "scanned-separately") return `Script ${placement.scriptNumber} already has a scan uploaded on its own: not filed`;
    const twin = keptById.get(placement.duplicateOf!)!;
    return `Same page as pile page ${twin.pile_page} of ${pileName(twin)}: kept once`;
  };
}
