import crypto from "node:crypto";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import type { Tx } from "../db/client";
import { institutes } from "../db/schema";

export const createInstituteInput = z.object({ name: text(200).trim().min(1, "name is required") });

/** Graph database names follow Neo4j's rules: lowercase letters, digits, dots and dashes. */
const graphDbName = (prefix: string) => `${prefix}-${crypto.randomUUID().replaceAll("-", "")}`;

export async function createInstitute(tx: Tx, input: z.input<typeof createInstituteInput>) {
  const { name } = createInstituteInput.parse(input);
  const [institute] = await tx
    .insert(institutes)
    .values({ name, graph_db_name: graphDbName("school"), curriculum_db_name: graphDbName("curriculum") })
    .returning();
  return institute!;
}
