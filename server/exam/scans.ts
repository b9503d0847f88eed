import crypto from "node:crypto";
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../db/client";
import { asUser } from "../db/rls";
import { examSubmissions, examTemplates } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { logger } from "../logger";
import { objectStorage } from "../storage/configured-storage";
import { type ObjectStorage, readObjectBytes } from "../storage/object-storage";
import { batchNames, presentSubmission } from "./anonymity";
import { submissionOutput } from "./batches";
import type { MultipartFile } from "../http/multipart";
import { type PdfUpload, readPdfUpload, recordStoredPdf, streamPdfToStorage } from "./pdf-upload";
import { openBatchFor } from "./batch-gate";
import { queueAnswerReading } from "./answer-reading-queue";
import { type IntakeImaging, configuredIntakeImaging } from "./intake/imaging-port";
import { type ScanContents, readScanContents, refuseScanOfAnotherStudent, refuseScanOfSeveralScripts } from "./intake/scan-check";

const scanFields = z.object({
  student_id: z.uuid("student_id must be a student's user id").optional(),
  matching_method: z.enum(["manual", "ordered"], { error: "matching_method must be manual or ordered" }).default("manual"),
});
export const scanUploadOutput = submissionOutput;

export interface ScanOptions {
  storage?: ObjectStorage;
  maxBytes?: number;
  bucket?: string;
  /** The reader of pages and codes (the process's imaging by default); null: the scan is not read before matching. */
  imaging?: Pick<IntakeImaging, "readPile"> | null;
}

/**
 * POST /api/exam/batches/{id}/scans, the contract's rules in order (docs/spec/classroom-api.md "Scan upload rules" 1–7):
 * 1. the batch gate (batch-gate.ts, upload_scan): visible (404), the caller's (403), neither archived nor signed off (409);
 * 2. the file's declared content type is application/pdf or application/x-pdf (415);
 * 3. no larger than MAX_SCAN_BYTES, enforced while reading (413, the sender's stream is cancelled);
 * 4. the first bytes are the PDF signature `%PDF-` (415);
 * 5. streamed to storage at exam-submissions/<batch_id>/<uuid>.pdf in SCAN_BUCKET (502 on failure);
 * 6. matched: manual picks student_id's submission; ordered the first pending one in roster order
 *    (a student marked absent is not pending),
 *    under FOR UPDATE SKIP LOCKED so concurrent uploads never take the same slot;
 * 7. the match gets the scan (status matched), or a new unmatched submission is created.
 * Before 6 (issue 33, item 12), the stored scan's pages are counted and their codes read by the pile's
 * reader (server/exam/intake/scan-check.ts): more pages than the paper, pages of several printed scripts or of
 * another batch are refused (400) before any match, and at 6 a scan whose codes name another student's
 * script is refused too. A stored file whose database write or check then fails is deleted again.
 */
export async function uploadScan(db: Db, callerId: string, batchId: string, upload: PdfUpload, options: ScanOptions = {}) {
  const storage = options.storage ?? objectStorage();
  const maxBytes = options.maxBytes ?? env().MAX_SCAN_BYTES;
  const bucket = options.bucket ?? env().SCAN_BUCKET;

  const imaging = options.imaging === undefined ? configuredIntakeImaging() : options.imaging;
  const paperPages = await asUser(db, callerId, async (tx) => {
    const batch = await openBatchFor(tx, callerId, batchId, "upload_scan");
    const [template] = await tx.select({ page_count: examTemplates.page_count }).from(examTemplates).where(eq(examTemplates.id, batch.template_id));
    return template?.page_count ?? null;
  });

  // Set as soon as the file is in storage, so that a refusal after it deletes the file again.
  let stored = null as StoredScan | null;
  try {
    const { fields, file } = await readPdfUpload(upload, maxBytes, "scan", async (part) => (stored = await storeScan(part, { storage, bucket, batchId })));
    if (!file) throw new AppError("invalid", "File: choose the scan (a PDF file) to upload", "file");
    // A repeated field counts by its last value.
    const field = (name: string) => fields.get(name)?.at(-1)?.trim();
    const { student_id: studentId, matching_method: method } = scanFields.parse({ student_id: field("student_id"), matching_method: field("matching_method") });
    const contents = imaging ? await readScanContents(new Uint8Array(await readObjectBytes(storage, bucket, file.key)), imaging.readPile, paperPages, env().MAX_PILE_PAGES) : null;
    return await asUser(db, callerId, (tx) => recordScan(tx, callerId, batchId, { ...file, bucket, studentId, method }, contents, paperPages));
  } catch (error) {
    if (stored) {
      const key = stored.key;
      await storage.delete(bucket, key).catch((cleanup) => logger.error(`could not delete orphaned scan ${bucket}/${key}`, cleanup));
    }
    throw error;
  }
}

interface StoredScan {
  key: string;
  byteSize: number;
  sha256: string;
  originalName: string | null;
}

/** Rules 2–5: type, size while streaming, signature on the first bytes, then the bytes into storage. */
async function storeScan(part: MultipartFile, { storage, bucket, batchId }: { storage: ObjectStorage; bucket: string; batchId: string }): Promise<StoredScan> {
  const key = `exam-submissions/${batchId}/${crypto.randomUUID()}.pdf`;
  const { byteSize, sha256 } = await streamPdfToStorage(part, { storage, bucket, key, what: "scan" });
  return { key, byteSize, sha256, originalName: part.filename };
}

/** Rules 6–7, in one transaction as the caller. */
async function recordScan(
  tx: Tx,
  callerId: string,
  batchId: string,
  scan: { key: string; bucket: string; byteSize: number; sha256: string; originalName: string | null; studentId?: string; method: "manual" | "ordered" },
  contents: ScanContents | null,
  paperPages: number | null,
) {
  const batch = await openBatchFor(tx, callerId, batchId, "upload_scan");
  const scriptNumber = contents ? await refuseScanOfSeveralScripts(tx, contents, batch, paperPages) : null;
  const file = await recordStoredPdf(tx, { instituteId: batch.institute_id, ownerId: callerId }, scan);
  const scanFields = { scan_url: scan.key, scan_file_id: file.id, qr_code: null, matching_method: scan.method, page_count: null, updated_at: new Date() };

  const [slot] =
    scan.method === "manual"
      ? scan.studentId
        ? await tx
            .select()
            .from(examSubmissions)
            .where(and(eq(examSubmissions.batch_id, batchId), eq(examSubmissions.student_id, scan.studentId)))
            .for("update")
        : []
      : await tx
          .select()
          .from(examSubmissions)
          .where(
            and(
              eq(examSubmissions.batch_id, batchId),
              // A student the teacher marked absent sat no paper: the pile skips them.
              or(
                and(eq(examSubmissions.status, "absent"), isNull(examSubmissions.absence_marked_at)),
                and(eq(examSubmissions.status, "unmatched"), sql`${examSubmissions.scan_url} is null`),
              ),
            ),
          )
          .orderBy(sql`${examSubmissions.student_name} asc nulls last`, examSubmissions.created_at, examSubmissions.id)
          .limit(1)
          .for("update", { skipLocked: true });

  if (scriptNumber !== null) await refuseScanOfAnotherStudent(tx, batch, scriptNumber, slot ?? null);
  if (slot) {
    // A submission already being marked keeps its status (its marks stay valid); others become matched.
    const status = slot.status === "marking" || slot.status === "complete" ? slot.status : "matched";
    const [matched] = await tx.update(examSubmissions).set({ ...scanFields, status }).where(eq(examSubmissions.id, slot.id)).returning();
    await queueAnswerReading(tx, batch, [matched!.id]);
    return { submission: presentSubmission(matched!, batchNames(batch)), created: false };
  }
  const [created] = await tx
    .insert(examSubmissions)
    .values({ batch_id: batchId, student_id: null, student_name: null, status: "unmatched", ...scanFields })
    .returning();
  if (!created) throw new AppError("internal", "The submission could not be created");
  // Its answers are read from the scan (server/exam/answers/read-job.ts).
  await queueAnswerReading(tx, batch, [created.id]);
  return { submission: presentSubmission(created, batchNames(batch)), created: true };
}
