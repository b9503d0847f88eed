import { and, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../db/client";
import { asUser } from "../db/rls";
import { backgroundJobs, examTemplates, jobStates } from "../db/schema";
import { notFound } from "../errors";
import { enqueueTemplateProjection, projectTemplateJob } from "./projection-job";

/**
 * What the owner of a template sees of its graph projection: the state of the latest projection job,
 * and, when the last attempt failed, why and when Markbook tries again. A template nobody saved since
 * jobs exist (or whose done job was tidied away) has state "none".
 */
export const templateGraphStatusOutput = z.object({
  state: z.enum([...jobStates, "none"]),
  /** Set while the last attempt's failure stands: the job waits for its next try, or has given up. */
  problem: z
    .object({
      reason: z.string(),
      /** When the next automatic attempt starts; null when Markbook has stopped trying. */
      next_attempt_at: z.iso.datetime({ offset: true }).nullable(),
    })
    .nullable(),
});
export type TemplateGraphStatus = z.infer<typeof templateGraphStatusOutput>;

/** The template's owner only: for anyone else, colleagues who can read the template included, it is not there. */
async function ensureOwnTemplate(tx: Tx, userId: string, templateId: string) {
  const [template] = await tx.select({ owner_id: examTemplates.owner_id }).from(examTemplates).where(eq(examTemplates.id, templateId));
  if (!template || template.owner_id !== userId) throw notFound("Template");
}

async function latestProjectionStatus(tx: Tx, templateId: string): Promise<TemplateGraphStatus> {
  // Row-level security shows the caller the jobs queued for them, and only the owner saves a template.
  const [job] = await tx
    .select({ state: backgroundJobs.state, last_error: backgroundJobs.last_error, run_at: backgroundJobs.run_at })
    .from(backgroundJobs)
    .where(and(eq(backgroundJobs.kind, projectTemplateJob.name), eq(backgroundJobs.dedupe_key, templateId)))
    .orderBy(desc(backgroundJobs.created_at))
    .limit(1);
  if (!job) return { state: "none", problem: null };
  const failedLast = job.last_error !== null && (job.state === "queued" || job.state === "failed");
  return {
    state: job.state,
    problem: failedLast
      ? { reason: job.last_error!, next_attempt_at: job.state === "queued" ? job.run_at.toISOString() : null }
      : null,
  };
}

export function getTemplateGraphStatus(db: Db, userId: string, templateId: string): Promise<TemplateGraphStatus> {
  return asUser(db, userId, async (tx) => {
    await ensureOwnTemplate(tx, userId, templateId);
    return latestProjectionStatus(tx, templateId);
  });
}

/**
 * "Retry now": the projection runs as soon as a worker is free, whether it was waiting for its next
 * attempt (which moves to now) or had given up (a new job with fresh attempts).
 */
export function retryTemplateGraphProjection(db: Db, userId: string, templateId: string): Promise<TemplateGraphStatus> {
  return asUser(db, userId, async (tx) => {
    await ensureOwnTemplate(tx, userId, templateId);
    await enqueueTemplateProjection(tx, templateId);
    return latestProjectionStatus(tx, templateId);
  });
}
