import { z } from "zod";
import type { Tx } from "../db/client";
import { AppError } from "../errors";
import { enqueueJob } from "../jobs/enqueue";
import { defineJobKind } from "../jobs/kind";
import { projectTemplate } from "./projection";

/**
 * A template's graph projection after a save, as a durable background job: queued in the save's own
 * transaction, run by any app process, retried with backoff. One job per template waits at a time;
 * saves while it waits join it.
 */
export const projectTemplateJob = defineJobKind({
  name: "graph.project-template",
  payload: z.object({ templateId: z.uuid() }),
  async run({ templateId }, { db }) {
    try {
      await projectTemplate(db, templateId);
    } catch (error) {
      // Deleted since the save: nothing left to project.
      if (error instanceof AppError && error.code === "not_found") return;
      throw error;
    }
  },
  // An app error says what to change (a question id another template uses); anything else is the graph
  // database (Neo4j unreachable, a timeout), which retrying usually cures.
  describeFailure: (error) =>
    error instanceof AppError ? error.message : "the curriculum graph database did not answer or refused the update",
});

/** Queues the projection of a template inside the transaction that saved it. */
export function enqueueTemplateProjection(tx: Tx, templateId: string): Promise<string> {
  return enqueueJob(tx, projectTemplateJob, { templateId }, { dedupeKey: templateId });
}
