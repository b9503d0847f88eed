import crypto from "node:crypto";
import { z } from "zod";
import type { Db } from "../../db/client";
import { asUser } from "../../db/rls";
import { examScanPiles } from "../../db/schema";
import { env } from "../../env";
import { AppError } from "../../errors";
import { openBatchFor } from "../batch-gate";
import { type PdfUpload, readPdfUpload, recordStoredPdf, streamPdfToStorage } from "../pdf-upload";
import { enqueueJob } from "../../jobs/enqueue";
import { logger } from "../../logger";
import { objectStorage } from "../../storage/configured-storage";
import type { ObjectStorage } from "../../storage/object-storage";
import { pileJobKey, readScanPileJob } from "./pile-job";

export const pileStatusValues = ["queued", "reading", "filing", "done", "failed"] as const;
export const pileOutput = z.object({
  id: z.uuid(),
  batch_id: z.uuid(),
  original_name: z.string().nullable(),
  byte_size: z.number().int(),
  status: z.enum(pileStatusValues),
  page_count: z.number().int().nullable(),
  pages_read: z.number().int(),
  created_at: z.date(),
});

export interface PileUploadOptions {
  storage?: ObjectStorage;
  maxBytes?: number;
  bucket?: string;
}

/**
 * POST /api/exam/batches/{batch_id}/piles: one scanned pile (a PDF of a class set, in any order) per
 * request, in this order:
 * 1. the batch gate (batch-gate.ts, upload_pile): visible (404), the caller's (403), neither archived nor signed off (409);
 * 2. multipart with the PDF in `file` (415), no larger than MAX_PILE_BYTES while streaming (413), a PDF
 *    by declared type and signature (415);
 * 3. streamed to exam-piles/<batch_id>/<uuid>.pdf in SCAN_BUCKET, never held in memory;
 * 4. one transaction as the caller: its files row, the pile (queued) and the job that reads it.
 * A stored file whose database write then fails is deleted again.
 */
export async function uploadPile(db: Db, callerId: string, batchId: string, upload: PdfUpload, options: PileUploadOptions = {}) {
  const storage = options.storage ?? objectStorage();
  const maxBytes = options.maxBytes ?? env().MAX_PILE_BYTES;
  const bucket = options.bucket ?? env().SCAN_BUCKET;

  await asUser(db, callerId, (tx) => openBatchFor(tx, callerId, batchId, "upload_pile"));

  let storedKey: string | null = null;
  try {
    const { file } = await readPdfUpload(upload, maxBytes, "scanned pile", async (part) => {
      const key = `exam-piles/${batchId}/${crypto.randomUUID()}.pdf`;
      const { byteSize, sha256 } = await streamPdfToStorage(part, { storage, bucket, key, what: "scanned pile" });
      storedKey = key;
      return { key, byteSize, sha256, originalName: part.filename };
    });
    if (!file) throw new AppError("invalid", "File: choose the scanned pile (a PDF file) to upload", "file");
    return await asUser(db, callerId, async (tx) => {
      const batch = await openBatchFor(tx, callerId, batchId, "upload_pile");
      const stored = await recordStoredPdf(tx, { instituteId: batch.institute_id, ownerId: callerId }, { ...file, bucket });
      const [pile] = await tx
        .insert(examScanPiles)
        .values({ batch_id: batchId, file_id: stored.id, uploaded_by: callerId, original_name: file.originalName?.slice(0, 255) ?? null, byte_size: file.byteSize })
        .returning();
      if (!pile) throw new AppError("internal", "The pile could not be recorded");
      await enqueueJob(tx, readScanPileJob, { pile_id: pile.id, institute_id: batch.institute_id }, { dedupeKey: pileJobKey(pile.id) });
      return pile;
    });
  } catch (error) {
    if (storedKey) {
      const key: string = storedKey;
      await storage.delete(bucket, key).catch((cleanup) => logger.error(`could not delete orphaned pile ${bucket}/${key}`, cleanup));
    }
    throw error;
  }
}
