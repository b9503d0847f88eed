import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { asService } from "../db/rls";
import { examBatches, examQuestions, examReviewRequests, examSubmissions, users } from "../db/schema";
import { env } from "../env";
import { enqueueJob } from "../jobs/enqueue";
import { defineJobKind } from "../jobs/kind";
import { type MailMessage, mailer } from "./mail";

/**
 * E-mails to students (issue 35, item 7), when an SMTP server is configured: their results are
 * released, a review request of theirs is answered. Each is a background job queued in the transaction
 * of the write it tells of, so a release that is rolled back sends nothing, and one e-mail per job, so a
 * retry after a refused send sends nobody twice. Without SMTP nothing is queued.
 *
 * What an e-mail says: that there is something to read, and where. Never the marks or the reply: a
 * student's mailbox is not always only theirs to read, and Markbook is where the marks are shown.
 */
const noticePayload = z.discriminatedUnion("notice", [
  z.object({ notice: z.literal("released"), submission_id: z.uuid() }),
  z.object({ notice: z.literal("review-answered"), request_id: z.uuid() }),
]);
export type StudentNotice = z.output<typeof noticePayload>;

const myWorkLink = () => new URL("/my-work", env().appUrl).toString();

/** The e-mail for a notice, or null when there is nobody to tell any more (the script withdrawn, the student gone). */
async function composeNotice(tx: Tx, notice: StudentNotice): Promise<MailMessage | null> {
  if (notice.notice === "released") {
    const [row] = await tx
      .select({ email: users.email, name: users.display_name, title: examBatches.title, released: examSubmissions.released_at })
      .from(examSubmissions)
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(users, eq(users.id, examSubmissions.student_id))
      .where(eq(examSubmissions.id, notice.submission_id));
    if (!row?.released) return null;
    return {
      to: row.email,
      subject: `Your marked script for ${row.title} is ready`,
      text: `Hello ${row.name},\n\nYour teacher has released your marked script for ${row.title}. Sign in to Markbook to read it, with your marks and what to revise:\n${myWorkLink()}\n`,
    };
  }
  const [row] = await tx
    .select({ email: users.email, name: users.display_name, title: examBatches.title, label: examQuestions.label, status: examReviewRequests.status })
    .from(examReviewRequests)
    .innerJoin(examBatches, eq(examBatches.id, examReviewRequests.batch_id))
    .innerJoin(examQuestions, eq(examQuestions.id, examReviewRequests.question_id))
    .innerJoin(users, eq(users.id, examReviewRequests.student_id))
    .where(eq(examReviewRequests.id, notice.request_id));
  if (!row || row.status !== "answered") return null;
  return {
    to: row.email,
    subject: `Your review request for question ${row.label} has been answered`,
    text: `Hello ${row.name},\n\nYour request to look again at question ${row.label} of ${row.title} has been answered. Sign in to Markbook to read the answer:\n${myWorkLink()}\n`,
  };
}

export const studentNoticeJob = defineJobKind({
  name: "student-notice",
  payload: noticePayload,
  maxAttempts: 5,
  async run(notice, { db }) {
    const send = mailer();
    if (!send) return; // SMTP was configured when the job was queued and is not now: nothing to send with.
    const message = await asService(db, (tx) => composeNotice(tx, notice));
    if (message) await send.send(message);
  },
  describeFailure: () => "The e-mail server did not take the message; it is tried again later.",
});

/** Queues the e-mail for a notice in `tx`, when e-mail is configured; otherwise does nothing. */
export async function queueStudentNotice(tx: Tx, notice: StudentNotice): Promise<void> {
  if (!mailer()) return;
  const key = notice.notice === "released" ? `released:${notice.submission_id}` : `review-answered:${notice.request_id}`;
  await enqueueJob(tx, studentNoticeJob, notice, { dedupeKey: key });
}
