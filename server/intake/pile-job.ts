import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { asService } from "../db/rls";
import { examScanPiles } from "../db/schema";
import { env } from "../env";
import { AppError } from "../errors";
import { defineJobKind } from "../jobs/kind";
import { objectStorage } from "../storage/configured-storage";
import type { ObjectStorage } from "../storage/object-storage";
import { fileReadPages } from "./filing";
import { type IntakeImaging, intakeImaging } from "./imaging-port";
import { readPileIntoPages } from "./pile-reader";

export interface PileJobOptions {
  storage?: ObjectStorage;
  bucket?: string;
  signal?: AbortSignal;
}

/**
 * A pile from upload to done: its pages read and recorded (resuming after the last recorded page),
 * then filed. A pile already done is left alone, so a repeated run changes nothing.
 */
export async function processScanPile(db: Db, pileId: string, imaging: IntakeImaging, options: PileJobOptions = {}) {
  const storage = options.storage ?? objectStorage();
  const bucket = options.bucket ?? env().SCAN_BUCKET;
  const [pile] = await asService(db, (tx) => tx.select({ status: examScanPiles.status }).from(examScanPiles).where(eq(examScanPiles.id, pileId)));
  if (!pile || pile.status === "done" || pile.status === "failed") return;
  await readPileIntoPages(db, pileId, imaging.readPile, { storage, bucket, signal: options.signal });
  await fileReadPages(db, pileId, imaging.assembleScript, { storage, bucket });
}

/** Keeps a pile as failed, with the reason its teacher reads; its file and the pages read so far stay. */
export async function failPile(db: Db, pileId: string, reason: string) {
  await asService(db, (tx) => tx.update(examScanPiles).set({ status: "failed", failure: reason, finished_at: new Date() }).where(eq(examScanPiles.id, pileId)));
}

const describePileFailure = (error: unknown) =>
  error instanceof AppError ? error.message : "The pile could not be read because of an unexpected error on the server; upload it again, or ask your administrator";

const MAX_ATTEMPTS = 5;

/**
 * The background job of an uploaded pile, as the service. A PDF that cannot be opened at all fails the
 * pile at once (reading it again would not help); any other failure (storage, the database) is retried
 * with backoff, and the pile is failed on the last attempt.
 */
export const readScanPileJob = defineJobKind({
  name: "read-scan-pile",
  payload: z.object({ pile_id: z.uuid() }),
  maxAttempts: MAX_ATTEMPTS,
  describeFailure: describePileFailure,
  async run({ pile_id: pileId }, { db, attempt }) {
    try {
      await processScanPile(db, pileId, intakeImaging());
    } catch (error) {
      const unopenable = error instanceof AppError && error.code === "invalid";
      if (unopenable || attempt >= MAX_ATTEMPTS) await failPile(db, pileId, describePileFailure(error));
      if (!unopenable) throw error;
    }
  },
});
