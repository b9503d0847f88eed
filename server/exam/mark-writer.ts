/**
 * Mark saves that arrive together share a transaction (group commit), whoever makes them. A marking
 * screen saves on every keystroke that settles a mark, and a school marks at once: a transaction per
 * save spends most of its time, on both sides of the socket, on BEGIN, COMMIT and waiting for answers,
 * not on the mark. Saves that arrive while transactions are being written wait for the next one; a
 * save that finds a transaction slot free goes at once, so a lone save waits for nothing.
 *
 * Each caller's saves in a shared transaction run as that caller, under row-level security, with the
 * caller's own statements (asUsersInOneTrip and upsertMarks' rules). A submission is written by one
 * transaction of the writer at a time: a save to a submission that a transaction is writing waits for
 * a later one. So writes to one pair apply in the order they arrived, and the writer's transactions
 * never wait for each other's locks (nor deadlock on them).
 */
import type { z } from "zod";
import type { Db } from "../db/client";
import { asUsersInOneTrip } from "../db/rls";
import { type Mark, type MarkUpsert, lockWritten, markWriteError, markWrites, upsertMark, upsertMarkInput } from "./marks";

/**
 * Transactions in flight at once, and saves per transaction at most. Measured with bench:exam (32
 * clients, 32 teachers, 2 cores): 3 × 16 and 2 × 16 gave the most saves per second with the lowest p99;
 * 4 × 64 spent a third more of PostgreSQL's CPU per save and tripled the p99 (one backend working
 * through 64 saves while the others wait), 4 × 8 and 8 × 4 sent more, smaller transactions.
 */
const IN_FLIGHT = 3;
const MAX_BATCH = 16;

interface PendingSave {
  callerId: string;
  write: MarkUpsert;
  resolve: (mark: Mark) => void;
  reject: (error: unknown) => void;
}

class MarkWriter {
  private waiting: PendingSave[] = [];
  private inFlight = 0;
  /** Submissions that a transaction in flight writes to. */
  private readonly busy = new Set<string>();

  constructor(private readonly db: Db) {}

  save(callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
    const write = upsertMarkInput.parse(input);
    return new Promise<Mark>((resolve, reject) => {
      this.waiting.push({ callerId, write, resolve, reject });
      this.pump();
    });
  }

  private pump() {
    while (this.inFlight < IN_FLIGHT && this.waiting.length > 0) {
      const batch = this.takeBatch();
      if (batch.length === 0) return; // every waiting save is on a submission being written
      const submissions = new Set(batch.map((save) => save.write.body.submission_id));
      for (const submission of submissions) this.busy.add(submission);
      this.inFlight++;
      void this.write(batch).finally(() => {
        for (const submission of submissions) this.busy.delete(submission);
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Waiting saves in arrival order, up to MAX_BATCH, but those on busy submissions (which keep their places). */
  private takeBatch(): PendingSave[] {
    const batch: PendingSave[] = [];
    const kept: PendingSave[] = [];
    for (const save of this.waiting) {
      if (batch.length < MAX_BATCH && !this.busy.has(save.write.body.submission_id)) batch.push(save);
      else kept.push(save);
    }
    this.waiting = kept;
    return batch;
  }

  private async write(batch: PendingSave[]) {
    const parts = inCallerParts(batch).map(({ callerId, saves }) => ({ callerId, saves, plan: markWrites(callerId, saves.map((save) => save.write)) }));
    try {
      const results = await asUsersInOneTrip(
        this.db,
        parts.map((part) => ({ userId: part.callerId, statements: part.plan.statements })),
        lockWritten(batch.map((save) => save.write)),
      );
      parts.forEach((part, index) => {
        part.plan.outcomes(results[index]!).forEach((outcome, position) => {
          const save = part.saves[position]!;
          if ("error" in outcome) save.reject(outcome.error);
          else save.resolve(outcome.mark);
        });
      });
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(markWriteError(error));
      // One write failed the shared transaction (a mark id naming another pair, a question deleted
      // meanwhile): nothing of it was saved. Each write goes again on its own, so only the faulty one
      // gets the error; one after the other, so writes to one pair keep their order.
      for (const save of batch) {
        await upsertMark(this.db, save.callerId, save.write).then(save.resolve, save.reject);
      }
    }
  }
}

/**
 * The saves of a transaction as parts of one caller each, run in order. A save joins its caller's last
 * part unless a later part writes to its submission (it then starts a part of its own at the end), so
 * writes to one submission, whoever makes them, apply in the order they arrived.
 */
function inCallerParts(batch: PendingSave[]): { callerId: string; saves: PendingSave[]; submissions: Set<string> }[] {
  const parts: { callerId: string; saves: PendingSave[]; submissions: Set<string> }[] = [];
  for (const save of batch) {
    const submission = save.write.body.submission_id;
    let index = parts.findLastIndex((part) => part.callerId === save.callerId);
    if (index >= 0 && parts.slice(index + 1).some((later) => later.submissions.has(submission))) index = -1;
    if (index < 0) parts.push({ callerId: save.callerId, saves: [], submissions: new Set() });
    const part = parts[index < 0 ? parts.length - 1 : index]!;
    part.saves.push(save);
    part.submissions.add(submission);
  }
  return parts;
}

const writers = new WeakMap<Db, MarkWriter>();

/**
 * Saves one mark as the caller, by upsertMarks' rules, sharing a transaction with the saves made at
 * the same time. Bad input throws before anything is queued.
 */
export function saveMark(db: Db, callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new MarkWriter(db)));
  return writer.save(callerId, input);
}
