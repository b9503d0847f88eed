import { eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { examTemplates } from "../db/schema";
import { AppError, notFound } from "../errors";

type TemplateRow = typeof examTemplates.$inferSelect;

/** A template visible to the caller (404 otherwise). */
export async function findTemplate(tx: Tx, templateId: string): Promise<TemplateRow> {
  const [template] = await tx.select().from(examTemplates).where(eq(examTemplates.id, templateId));
  if (!template) throw notFound("Template");
  return template;
}

/**
 * A visible template the caller owns (403 for a colleague who can see it), locked for the change.
 * The lock comes after the owner check: under row-level security FOR UPDATE sees only rows the caller
 * may update, which would turn a colleague's 403 into a 404.
 */
export async function findOwnTemplateForUpdate(
  tx: Tx,
  callerId: string,
  templateId: string,
  refusal = "Only the template's owner can change it",
): Promise<TemplateRow> {
  const template = await findTemplate(tx, templateId);
  if (template.owner_id !== callerId) throw new AppError("forbidden", refusal);
  const [locked] = await tx.select().from(examTemplates).where(eq(examTemplates.id, templateId)).for("update");
  if (!locked) throw notFound("Template");
  return locked;
}
