import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { examBatchMarkers, examBatches, instituteMemberships, users } from "../db/schema";
import { AppError, notFound } from "../errors";

/**
 * The batch gate: the one place that says who may change a batch, or what is under it, now (issue 34,
 * item 2; docs/decisions.md "One batch gate"). Every write path of a batch names its action here and
 * calls openBatchFor, which checks, in this order:
 * 1. the batch is visible to the caller (staff of its school), else 404;
 * 2. the caller may do this action: the owner, a department head of the school, an invited marker
 *    (the actions a marker does), or any staff (a blind second mark), as the action says, else 403
 *    with a sentence that names the owner to ask;
 * 3. the batch is not archived, else 409;
 * 4. the batch is not signed off, else 409 (a department head reopens it first).
 * An action declares the steps it is exempt from (archiving is allowed on a signed-off batch, and is
 * idempotent on an archived one). The sentences come from one template, also for the mark write, whose
 * rules are checked in SQL (marks.ts; the database's policies are the authority) and whose refusals
 * are worded by batchRefusal.
 */

/** Who may do an action: each group includes the ones before it, but `staff`, which is everyone who sees the batch. */
type Who = "owner" | "moderators" | "writers" | "heads" | "staff";
type Exception = "archived" | "signed_off";

interface ActionRule {
  who: Who;
  /** What the caller would do, after "can": "upload its scans". */
  doing: string;
  /** What a closed batch accepts no more of: "scans". */
  changes: string;
  exceptions?: readonly Exception[];
}

export const batchActions = {
  mark: { who: "writers", doing: "mark it", changes: "marks" },
  /** A shape on a script's scan (first marking's layer; a blind second marker's own shapes are `second_mark`'s). */
  annotate: { who: "writers", doing: "annotate its scripts", changes: "annotations" },
  set_absence: { who: "writers", doing: "change its attendance", changes: "changes to attendance" },
  claim: { who: "writers", doing: "claim its marking", changes: "claims" },
  /** Letting go of a claim changes no mark: anyone who sees the batch may, whatever its state (the claims' policies say whose). */
  release_claim: { who: "staff", doing: "release its claims", changes: "released claims", exceptions: ["archived", "signed_off"] },
  upload_scan: { who: "owner", doing: "upload its scans", changes: "scans" },
  upload_pile: { who: "owner", doing: "upload its scanned piles", changes: "scanned piles" },
  move_page: { who: "owner", doing: "move its scanned pages", changes: "moves of its scanned pages" },
  assign_scan: { who: "owner", doing: "assign its scans", changes: "assignments of its scans" },
  print_scripts: { who: "owner", doing: "print its scripts", changes: "printed scripts" },
  invite_marker: { who: "owner", doing: "invite markers", changes: "new markers" },
  remove_marker: { who: "owner", doing: "remove markers", changes: "changes to its markers" },
  allocate: { who: "owner", doing: "allocate marking", changes: "changes to allocations" },
  change_settings: { who: "owner", doing: "change its settings", changes: "changes to its settings" },
  archive: { who: "owner", doing: "archive it", changes: "archiving", exceptions: ["archived", "signed_off"] },
  set_sample: { who: "moderators", doing: "choose its moderation sample", changes: "changes to its moderation sample" },
  reconcile: { who: "moderators", doing: "reconcile its marks", changes: "reconciliations" },
  second_mark: { who: "staff", doing: "second-mark it", changes: "second marks" },
  sign_off: { who: "heads", doing: "sign it off", changes: "sign-offs", exceptions: ["archived", "signed_off"] },
  reopen: { who: "heads", doing: "reopen it", changes: "reopenings", exceptions: ["archived", "signed_off"] },
  /**
   * Results back to students (returns/release.ts): a release changes no mark, so a signed-off batch may
   * be released (its marks are final: what a release wants); an archived one may not (its reviews could
   * not be answered), but its release may always be withdrawn.
   */
  release: { who: "owner", doing: "release its results to students", changes: "releases of its results", exceptions: ["signed_off"] },
  withdraw_release: { who: "owner", doing: "withdraw its results from students", changes: "withdrawals of its results", exceptions: ["archived", "signed_off"] },
} as const satisfies Record<string, ActionRule>;

export type BatchAction = keyof typeof batchActions;
export type BatchRow = typeof examBatches.$inferSelect;
/** The caller's part in a batch. */
export type BatchRole = "owner" | "head" | "marker" | "colleague";

const whoSays: Record<Who, string> = {
  owner: "its owner",
  moderators: "its owner or a department head",
  writers: "its owner, its markers or a department head",
  heads: "a department head",
  staff: "staff of its school",
};

const allowed: Record<Who, readonly BatchRole[]> = {
  owner: ["owner"],
  moderators: ["owner", "head"],
  writers: ["owner", "head", "marker"],
  heads: ["head"],
  staff: ["owner", "head", "marker", "colleague"],
};

/** Why a batch refuses an action, as the caller reads it: one template for every write path. */
export function batchRefusal(action: BatchAction, refusal: "archived" | "signed_off" | "not_writer", ownerName?: string | null): AppError {
  const rule: ActionRule = batchActions[action];
  switch (refusal) {
    case "archived":
      return new AppError("conflict", `The batch is archived: it accepts no more ${rule.changes}`);
    case "signed_off":
      return new AppError("conflict", `The batch is signed off: it accepts no more ${rule.changes} until a department head reopens it`);
    case "not_writer":
      return new AppError(
        "forbidden",
        ownerName
          ? `This batch is ${ownerName}'s: only ${whoSays[rule.who]} can ${rule.doing}; ask ${ownerName} if you should`
          : `This batch is another teacher's: only ${whoSays[rule.who]} can ${rule.doing}`,
      );
  }
}

/** Whether a caller with these parts may do `action`. */
const mayDo = (roles: readonly BatchRole[], action: BatchAction) => roles.some((role) => allowed[(batchActions[action] as ActionRule).who].includes(role));

/** Whether the caller is a department head of the school (who moderates, signs off and reopens its batches). */
export async function isHeadOf(tx: Tx, callerId: string, instituteId: string): Promise<boolean> {
  const [row] = await tx
    .select({ role: instituteMemberships.role })
    .from(instituteMemberships)
    .where(and(eq(instituteMemberships.user_id, callerId), eq(instituteMemberships.institute_id, instituteId), eq(instituteMemberships.role, "department_head")));
  return row !== undefined;
}

/**
 * Every part the caller plays in a batch they can see: one person can be several (a department head
 * who owns the batch signs it off as a head and uploads its scans as its owner); "colleague" alone
 * when none.
 */
export async function rolesIn(tx: Tx, callerId: string, batch: BatchRow): Promise<BatchRole[]> {
  const head = await isHeadOf(tx, callerId, batch.institute_id);
  const [marker] = await tx
    .select({ user_id: examBatchMarkers.user_id })
    .from(examBatchMarkers)
    .where(and(eq(examBatchMarkers.batch_id, batch.id), eq(examBatchMarkers.user_id, callerId)));
  const roles: BatchRole[] = [];
  if (batch.teacher_id === callerId) roles.push("owner");
  if (head) roles.push("head");
  if (marker) roles.push("marker");
  return roles.length > 0 ? roles : ["colleague"];
}

async function ownerName(tx: Tx, batch: BatchRow): Promise<string | null> {
  const [owner] = await tx.select({ full_name: users.full_name }).from(users).where(eq(users.id, batch.teacher_id));
  return owner?.full_name ?? null;
}

/**
 * The batch, if the caller may do `action` on it now; refused otherwise (404, 403, 409: see above).
 * `batch` is its id, or its row when the caller has read it in this transaction already. `lock` takes
 * the batch row FOR UPDATE after the checks (FOR UPDATE applies the update policy, the owner's: taken
 * before, it would hide the batch from a colleague, a 404 instead of the 403).
 */
export async function openBatchFor(tx: Tx, callerId: string, batch: string | BatchRow, action: BatchAction, { lock = false } = {}): Promise<BatchRow> {
  const row = typeof batch === "string" ? (await tx.select().from(examBatches).where(eq(examBatches.id, batch)))[0] : batch;
  if (!row) throw notFound("Batch");
  const rule: ActionRule = batchActions[action];
  if (rule.who !== "staff" && !mayDo(await rolesIn(tx, callerId, row), action)) throw batchRefusal(action, "not_writer", await ownerName(tx, row));
  if (row.status === "archived" && !rule.exceptions?.includes("archived")) throw batchRefusal(action, "archived");
  // The batch row's flag (kept from exam_batch_sign_offs by a trigger): the one the mark write reads.
  if (row.signed_off && !rule.exceptions?.includes("signed_off")) throw batchRefusal(action, "signed_off");
  if (lock) await tx.select({ id: examBatches.id }).from(examBatches).where(eq(examBatches.id, row.id)).for("update");
  return row;
}
