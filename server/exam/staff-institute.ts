import { eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { instituteMemberships } from "../db/schema";
import { AppError } from "../errors";
import { staffRoles } from "../../lib/rules/roles";
import { logger } from "../logger";

/**
 * The institute rule (docs/spec/classroom-api.md "Templates", POST /api/exam/templates; a template paper's upload follows
 * it too, so that the paper and the template it becomes land in the same institute): a given institute
 * must be one of the caller's (403); omitted, the sole membership is used; several memberships make it
 * required (400); none is 403. Memberships of any role count; then only staff of the chosen institute
 * (not its students) may go on (403, naming `action`).
 */
export async function resolveStaffInstitute(tx: Tx, callerId: string, requested: string | null | undefined, action: string): Promise<string> {
  let memberships: { institute_id: string; role: string }[];
  try {
    memberships = await tx
      .select({ institute_id: instituteMemberships.institute_id, role: instituteMemberships.role })
      .from(instituteMemberships)
      .where(eq(instituteMemberships.user_id, callerId));
  } catch (error) {
    // The contract's 502 (docs/spec/classroom-api.md "Errors"): the membership lookup itself failed (not "no
    // membership", which is 403).
    logger.error("institute membership lookup failed", error);
    throw new AppError("upstream", "Institute membership could not be resolved");
  }
  const instituteIds = [...new Set(memberships.map((m) => m.institute_id))];
  let chosen: string;
  if (requested) {
    if (!instituteIds.includes(requested.toLowerCase())) throw new AppError("forbidden", "You are not a member of that institute", "institute_id");
    chosen = requested.toLowerCase();
  } else if (instituteIds.length === 0) {
    throw new AppError("forbidden", "You have no institute membership");
  } else if (instituteIds.length > 1) {
    throw new AppError("invalid", "Institute: required, as you belong to several schools", "institute_id");
  } else {
    chosen = instituteIds[0]!;
  }
  if (!memberships.some((m) => m.institute_id === chosen && (staffRoles as readonly string[]).includes(m.role))) {
    throw new AppError("forbidden", `Only staff of the institute can ${action}`, "institute_id");
  }
  return chosen;
}
