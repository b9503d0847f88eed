/**
 * Mark saves that arrive together share a transaction (group commit). A marking screen saves on every
 * keystroke that settles a mark, and a school marks at once: a transaction per save spends most of
 * its time on BEGIN, the caller's settings, the policies' set-up and COMMIT, not on the mark. Saves of
 * one caller that arrive while that caller's earlier saves are being written wait and then go
 * together, in one upsertMarks call; a save that finds nothing in flight goes at once, so a lone save
 * waits for nothing.
 */
import type { z } from "zod";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { type Mark, type MarkUpsert, upsertMark, upsertMarkInput, upsertMarks } from "./marks";

/** Transactions of one caller in flight at once: one being written while the next one fills up. */
const IN_FLIGHT_PER_CALLER = 2;
/** Saves per transaction at most: a bound on a transaction's locks and on one statement's size. */
const MAX_BATCH = 64;

interface PendingSave {
  write: MarkUpsert;
  resolve(mark: Mark): void;
  reject(error: unknown): void;
}

interface CallerQueue {
  waiting: PendingSave[];
  inFlight: number;
}

class MarkWriter {
  private readonly callers = new Map<string, CallerQueue>();

  constructor(private readonly db: Db) {}

  save(callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
    const write = upsertMarkInput.parse(input);
    return new Promise<Mark>((resolve, reject) => {
      const queue = this.callers.get(callerId) ?? { waiting: [], inFlight: 0 };
      this.callers.set(callerId, queue);
      queue.waiting.push({ write, resolve, reject });
      this.pump(callerId, queue);
    });
  }

  private pump(callerId: string, queue: CallerQueue) {
    while (queue.inFlight < IN_FLIGHT_PER_CALLER && queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, MAX_BATCH);
      queue.inFlight++;
      void this.write(callerId, batch).finally(() => {
        queue.inFlight--;
        if (queue.inFlight === 0 && queue.waiting.length === 0) this.callers.delete(callerId);
        else this.pump(callerId, queue);
      });
    }
  }

  private async write(callerId: string, batch: PendingSave[]) {
    try {
      const outcomes = await asUser(this.db, callerId, (tx) => upsertMarks(tx, callerId, batch.map((save) => save.write)));
      outcomes.forEach((outcome, index) => ("error" in outcome ? batch[index]!.reject(outcome.error) : batch[index]!.resolve(outcome.mark)));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One write failed the shared transaction (a mark id naming another pair, a question deleted
      // meanwhile): nothing of it was saved. Each write goes again on its own, so only the faulty one
      // gets the error; one after the other, so writes to one pair keep their order.
      for (const save of batch) {
        await asUser(this.db, callerId, (tx) => upsertMark(tx, callerId, save.write)).then(save.resolve, save.reject);
      }
    }
  }
}

const writers = new WeakMap<Db, MarkWriter>();

/**
 * Saves one mark as the caller, by upsertMarks' rules, sharing a transaction with the caller's
 * concurrent saves. Bad input throws before anything is queued.
 */
export function saveMark(db: Db, callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new MarkWriter(db)));
  return writer.save(callerId, input);
}
