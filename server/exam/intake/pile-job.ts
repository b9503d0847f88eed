import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client";
import { asService } from "../../db/rls";
import { examScanPiles } from "../../db/schema";
import { env } from "../../env";
import { AppError } from "../../errors";
import { enqueueJob } from "../../jobs/enqueue";
import { defineJobKind } from "../../jobs/kind";
import { objectStorage } from "../../storage/configured-storage";
import type { ObjectStorage } from "../../storage/object-storage";
import { fileReadPages } from "./filing";
import { type IntakeImaging, intakeImaging } from "./imaging-port";
import { readPileIntoPages } from "./pile-reader";

export interface PileJobOptions {
  storage?: ObjectStorage;
  bucket?: string;
  signal?: AbortSignal;
  /** Read at most this many pages now (the job's slice); filing waits until every page is read. */
  slicePages?: number;
  /** A pile with more pages is refused (MAX_PILE_PAGES by default). */
  maxPages?: number;
}

/**
 * A pile from upload to done: its pages read and recorded (resuming after the last recorded page),
 * then filed. A pile already done is left alone, so a repeated run changes nothing. With `slicePages`
 * it may stop before the end: `finished` is false, and a later call goes on where this one stopped.
 */
export async function processScanPile(db: Db, pileId: string, imaging: IntakeImaging, options: PileJobOptions = {}): Promise<{ finished: boolean }> {
  const storage = options.storage ?? objectStorage();
  const bucket = options.bucket ?? env().SCAN_BUCKET;
  const maxPages = options.maxPages ?? env().MAX_PILE_PAGES;
  const [pile] = await asService(db, (tx) => tx.select({ status: examScanPiles.status }).from(examScanPiles).where(eq(examScanPiles.id, pileId)));
  if (!pile || pile.status === "done" || pile.status === "failed") return { finished: true };
  const { finished } = await readPileIntoPages(db, pileId, imaging.readPile, { storage, bucket, signal: options.signal, maxPages, slicePages: options.slicePages });
  if (!finished) return { finished };
  await fileReadPages(db, pileId, imaging.assembleScript, { storage, bucket });
  return { finished };
}

/** Keeps a pile as failed, with the reason its teacher reads; its file and the pages read so far stay. */
async function failPile(db: Db, pileId: string, reason: string) {
  await asService(db, (tx) => tx.update(examScanPiles).set({ status: "failed", failure: reason, finished_at: new Date() }).where(eq(examScanPiles.id, pileId)));
}

const describePileFailure = (error: unknown) =>
  error instanceof AppError ? error.message : "The pile could not be read because of an unexpected error on the server; upload it again, or ask your administrator";

const MAX_ATTEMPTS = 5;

/** The file itself is the problem (damaged, too many pages, a page beyond the limits): reading it again would not help. */
const fileRefused = (error: unknown) => error instanceof AppError && error.code === "invalid";

const pileJobPayload = z.object({
  pile_id: z.uuid(),
  /** The pile's school: the job runner shares its slots fairly between schools (job-table.ts). Absent in jobs queued before it was added. */
  institute_id: z.uuid().optional(),
});

/**
 * The background job of an uploaded pile, as the service, one slice of PILE_SLICE_PAGES pages per run:
 * a pile with pages left queues its next slice behind the jobs already waiting (another school's small
 * pile goes first) and gives its slot back. A file the imaging refuses (damaged, too many pages, an
 * absurd page) fails the pile and the job at once with the teacher's reason (a permanent failure, never
 * retried); any other failure (storage, the database, the imaging worker restarting) is retried with
 * backoff, and the pile is failed on the last attempt.
 */
export const readScanPileJob = defineJobKind({
  name: "read-scan-pile",
  payload: pileJobPayload,
  maxAttempts: MAX_ATTEMPTS,
  describeFailure: describePileFailure,
  permanentFailure: fileRefused,
  async run(payload, { db, attempt }) {
    const pileId = payload.pile_id;
    try {
      const { finished } = await processScanPile(db, pileId, intakeImaging(), { slicePages: env().PILE_SLICE_PAGES });
      if (!finished) await asService(db, (tx) => enqueueJob(tx, readScanPileJob, payload, { dedupeKey: pileJobKey(pileId) }));
    } catch (error) {
      if (fileRefused(error) || attempt >= MAX_ATTEMPTS) await failPile(db, pileId, describePileFailure(error));
      throw error;
    }
  },
});

/** One job at a time per pile: its waiting slice and its running one share this key. */
export const pileJobKey = (pileId: string) => `scan-pile:${pileId}`;
