import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { examMarkEntries, examQuestions, examSavedComments, examTemplates, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";

/**
 * The comment bank of a question: comments markers saved for it (a dictated comment too), and the
 * comments used most on its marks, offered on the marking screen so that the same feedback is given the
 * same way, in a keystroke. Every marker who sees the template reads and adds to it; a saved comment is
 * removed by whoever saved it or by the template's owner.
 */

/** Saved comments a question may have, and how many of the most used comments are offered. */
const MAX_SAVED_COMMENTS = 100;
const FREQUENT_COMMENTS = 8;

export const questionCommentsInput = z.object({ question_id: recordId("Question") });
const saveCommentBody = z.object({ text: text(2000).trim().min(1, "text is required") });
export const saveCommentInput = questionCommentsInput.extend({ body: saveCommentBody });
export const removeCommentInput = z.object({ comment_id: recordId("Saved comment") });

export const savedCommentOutput = z.object({
  id: z.uuid(),
  question_id: z.uuid(),
  text: z.string(),
  created_by: z.uuid().nullable(),
  created_by_name: z.string().nullable(),
  created_at: z.date(),
});
export const questionCommentsOutput = z.object({
  saved: z.array(savedCommentOutput).describe("Saved for the question, oldest first"),
  frequent: z
    .array(z.object({ text: z.string(), uses: z.number().int() }))
    .describe(`Comments given at least twice on the question's marks and not saved, most used first (at most ${FREQUENT_COMMENTS})`),
});

async function visibleQuestion(tx: Tx, questionId: string) {
  const [question] = await tx.select().from(examQuestions).where(eq(examQuestions.id, questionId));
  if (!question) throw notFound("Question");
  return question;
}

async function savedComments(tx: Tx, questionId: string) {
  const rows = await tx
    .select({ comment: examSavedComments, created_by_name: users.full_name })
    .from(examSavedComments)
    .leftJoin(users, eq(users.id, examSavedComments.created_by))
    .where(eq(examSavedComments.question_id, questionId))
    .orderBy(asc(examSavedComments.created_at), asc(examSavedComments.id));
  return rows.map(({ comment, created_by_name }) => ({ ...comment, created_by_name: created_by_name ?? null }));
}

/** GET /api/exam/questions/{question_id}/comments: the saved comments, and the most used on its marks. */
export async function listQuestionComments(tx: Tx, input: z.input<typeof questionCommentsInput>): Promise<z.output<typeof questionCommentsOutput>> {
  const { question_id: questionId } = questionCommentsInput.parse(input);
  await visibleQuestion(tx, questionId);
  const saved = await savedComments(tx, questionId);
  const uses = count();
  const frequent = await tx
    .select({ text: examMarkEntries.comment, uses })
    .from(examMarkEntries)
    .where(
      and(
        eq(examMarkEntries.question_id, questionId),
        sql`btrim(${examMarkEntries.comment}) <> ''`,
        sql`${examMarkEntries.comment} not in (select ${examSavedComments.text} from ${examSavedComments} where ${examSavedComments.question_id} = ${questionId})`,
      ),
    )
    .groupBy(examMarkEntries.comment)
    .having(sql`count(*) >= 2`)
    .orderBy(desc(uses), asc(examMarkEntries.comment))
    .limit(FREQUENT_COMMENTS);
  return { saved, frequent: frequent.map((row) => ({ text: row.text!, uses: Number(row.uses) })) };
}

/** POST /api/exam/questions/{question_id}/comments: saves a comment for the question (the same text once). */
export async function saveComment(tx: Tx, callerId: string, input: z.input<typeof saveCommentInput>): Promise<z.output<typeof savedCommentOutput>> {
  const { question_id: questionId, body } = saveCommentInput.parse(input);
  const question = await visibleQuestion(tx, questionId);
  if (question.is_container) throw new AppError("invalid", `Question ${question.label} takes no mark itself: save comments for its parts`, "question_id");
  const saved = await savedComments(tx, questionId);
  const same = saved.find((comment) => comment.text === body.text);
  if (same) return same;
  if (saved.length >= MAX_SAVED_COMMENTS) {
    throw new AppError("invalid", `Question ${question.label} already has ${MAX_SAVED_COMMENTS} saved comments, the most a question can have: remove one first`, "text");
  }
  // Saved by a colleague at the same moment: the unique index keeps one, and that one is answered.
  await tx
    .insert(examSavedComments)
    .values({ template_id: question.template_id, question_id: questionId, text: body.text, created_by: callerId })
    .onConflictDoNothing({ target: [examSavedComments.question_id, examSavedComments.text] });
  return (await savedComments(tx, questionId)).find((comment) => comment.text === body.text)!;
}

/** DELETE /api/exam/saved-comments/{comment_id}: by whoever saved it, or the template's owner. */
export async function removeComment(tx: Tx, callerId: string, input: z.input<typeof removeCommentInput>): Promise<{ id: string }> {
  const { comment_id: commentId } = removeCommentInput.parse(input);
  const [comment] = await tx
    .select({ id: examSavedComments.id, created_by: examSavedComments.created_by, owner_id: examTemplates.owner_id })
    .from(examSavedComments)
    .innerJoin(examTemplates, eq(examTemplates.id, examSavedComments.template_id))
    .where(eq(examSavedComments.id, commentId));
  if (!comment) throw notFound("Saved comment");
  if (comment.created_by !== callerId && comment.owner_id !== callerId) {
    throw new AppError("forbidden", "Only who saved a comment, or the template's owner, can remove it");
  }
  await tx.delete(examSavedComments).where(eq(examSavedComments.id, commentId));
  return { id: commentId };
}
