import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import { type Db, rowsOf } from "../db/client";
import { asService, asUser } from "../db/rls";
import { examScanPages, examScanPiles, examSubmissions, files } from "../db/schema";
import { env } from "../env";
import { AppError, notFound } from "../errors";
import { validatedReply } from "../http/validated-reply";
import { configuredIntakeImaging } from "./intake/imaging-port";
import { inspectPaper } from "./intake/imaging/inspect";
import { logger } from "../logger";
import { objectStorage } from "../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound } from "../storage/object-storage";
import type { MultipartFile } from "../http/multipart";
import { type PdfUpload, readPdfUpload, recordStoredPdf, streamPdfToStorage } from "./pdf-upload";
import { resolveStaffInstitute } from "./staff-institute";

/**
 * Template paper files: POST /api/exam/files stores an uploaded PDF (checked as scans are: declared
 * type, size while streaming, %PDF- signature) and counts its pages; GET /api/exam/files/{id} streams
 * a file the caller may read under row-level security (their school's files and catalogue files).
 * The contract (docs/spec/classroom-api.md "Templates") names no upload path for a template's PDF; this one follows
 * the scan upload's style.
 */


export const fileIdInput = z.object({ file_id: recordId("File") });
export const uploadFileQuery = z.object({ institute_id: z.uuid("institute_id must be an institute id").optional().describe("Required for a member of several institutes") });

export const fileOutput = z.object({
  id: z.uuid(),
  institute_id: z.uuid().nullable(),
  owner_id: z.uuid().nullable(),
  content_type: z.string(),
  byte_size: z.number().int(),
  sha256: z.string(),
  original_name: z.string().nullable(),
  page_count: z.number().int().nullable(),
  created_at: z.date(),
});

export interface FileUpload extends PdfUpload {
  instituteId?: string;
}

export interface FileOptions {
  storage?: ObjectStorage;
  maxBytes?: number;
  bucket?: string;
}

type FileRow = typeof files.$inferSelect;
const publicFile = (row: FileRow) => validatedReply(fileOutput, row, "exam file");

/**
 * Stores a template paper. The institute follows the template rule: the given one must be a staff
 * membership of the caller (403), or the caller's sole staff institute; several make it required (400).
 * The whole PDF is held in memory once stored, to count its pages (bounded by MAX_SCAN_BYTES).
 */
export async function uploadTemplateFile(db: Db, callerId: string, upload: FileUpload, options: FileOptions = {}) {
  const storage = options.storage ?? objectStorage();
  const maxBytes = options.maxBytes ?? env().MAX_SCAN_BYTES;
  const bucket = options.bucket ?? env().SCAN_BUCKET;
  const { institute_id: requested } = uploadFileQuery.parse({ institute_id: upload.instituteId });
  const instituteId = await asUser(db, callerId, (tx) => resolveStaffInstitute(tx, callerId, requested, "upload exam papers"));

  // Set as soon as the file is in storage, so that a refusal after it deletes the file again.
  let stored = null as StoredPdf | null;
  try {
    const { file } = await readPdfUpload(upload, maxBytes, "paper", async (part) => (stored = await storePdf(part, { storage, bucket, instituteId })));
    if (!file) throw new AppError("invalid", "File: choose the paper (a PDF file) to upload", "file");
    const pageCount = await countPages(file.bytes);
    const { key, bytes, sha256, originalName } = file;
    const row = await asUser(db, callerId, (tx) =>
      recordStoredPdf(tx, { instituteId, ownerId: callerId }, { bucket, key, byteSize: bytes.byteLength, sha256, originalName }, pageCount),
    );
    return publicFile(row);
  } catch (error) {
    if (stored) {
      const key = stored.key;
      await storage.delete(bucket, key).catch((cleanup) => logger.error(`could not delete orphaned file ${bucket}/${key}`, cleanup));
    }
    throw error;
  }
}

interface StoredPdf {
  key: string;
  bytes: Buffer;
  sha256: string;
  originalName: string | null;
}

/** The paper into storage (the scan rules: type, size, signature), kept in memory to count its pages. */
async function storePdf(part: MultipartFile, { storage, bucket, instituteId }: { storage: ObjectStorage; bucket: string; instituteId: string }): Promise<StoredPdf> {
  const key = `exam-templates/${instituteId}/${crypto.randomUUID()}.pdf`;
  const { bytes, sha256 } = await streamPdfToStorage(part, { storage, bucket, key, what: "paper", keepBytes: true });
  return { key, bytes: bytes!, sha256, originalName: part.filename };
}

/**
 * Pages of the paper, checked in the imaging worker as a pile's pages are (inspectPaper: a damaged file,
 * a page tree that loops, more than MAX_PAPER_PAGES pages, a page larger than any paper, an image or a
 * stream beyond the limits): parsing a file a person sent never holds the event loop. Refused with the
 * sentence (415, the file is not a PDF that can be used). Where no imaging was set (a test that never
 * reads pixels), the same checks run here.
 */
async function countPages(bytes: Buffer): Promise<number> {
  const imaging = configuredIntakeImaging();
  try {
    const { pageCount } = await (imaging ? imaging.inspectPaper(new Uint8Array(bytes)) : inspectPaper(new Uint8Array(bytes)));
    return pageCount;
  } catch (error) {
    if (error instanceof AppError && error.code === "invalid") throw new AppError("unsupported_media", error.message);
    throw error;
  }
}

/**
 * A paper the caller may read (RLS: their school's or the catalogue's) with its bytes as a stream. A
 * scan or a pile is a file of the school too, but not served here: its pages name students, and the scan
 * routes serve them to whom the batch's rules allow, redacted where it is anonymous; here it is a 404, as
 * for a file that does not exist. Whether a file is a scan is asked with the service's rights, since the
 * caller may see none of the batch that holds it.
 */
export async function openFile(db: Db, callerId: string, fileId: string, options: { storage?: ObjectStorage } = {}) {
  const { file_id: id } = fileIdInput.parse({ file_id: fileId });
  const row = await asUser(db, callerId, async (tx) => {
    const [file] = await tx.select().from(files).where(eq(files.id, id));
    if (!file) throw notFound("File");
    return file;
  });
  if (await isScan(db, row.id)) throw notFound("File");
  const storage = options.storage ?? objectStorage();
  try {
    return { file: publicFile(row), body: await storage.get(row.bucket, row.storage_key) };
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("File");
    logger.error("file read failed", error);
    throw new AppError("upstream", "The file could not be read from storage; try again");
  }
}

/** Whether a stored file holds scanned pages: a script's scan, a pile, or a page of one. */
async function isScan(db: Db, fileId: string): Promise<boolean> {
  const [row] = rowsOf<{ scan: boolean }>(
    await asService(db, (tx) =>
      tx.execute(sql`select exists (select 1 from ${examSubmissions} where scan_file_id = ${fileId})
        or exists (select 1 from ${examScanPiles} where file_id = ${fileId})
        or exists (select 1 from ${examScanPages} where file_id = ${fileId}) as scan`),
    ),
  );
  return row?.scan === true;
}
