"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

/**
 * Under the comment box: the question's saved comments and the comments given most on its marks, each a
 * button that adds it to the comment; and a button that saves the comment written (or dictated) for the
 * question, so that every marker of the paper can give it again.
 */
export function CommentBank({
  questionId,
  questionLabel,
  comment,
  disabled,
  onInsert,
}: {
  questionId: string;
  questionLabel: string;
  /** The comment in the box now. */
  comment: string;
  disabled: boolean;
  /** Adds a comment of the bank to the box. */
  onInsert: (text: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const bank = useQuery({ ...trpc.exam.comments.forQuestion.queryOptions({ question_id: questionId }), staleTime: 60_000 });
  const save = useMutation(
    trpc.exam.comments.save.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.exam.comments.forQuestion.queryKey({ question_id: questionId }) }),
    }),
  );
  const written = comment.trim();
  const offered = [...(bank.data?.saved ?? []).map((saved) => ({ text: saved.text, note: "saved" })), ...(bank.data?.frequent ?? []).map((often) => ({ text: often.text, note: `${often.uses}×` }))];
  const alreadySaved = (bank.data?.saved ?? []).some((saved) => saved.text === written);
  return (
    <div className="comment-bank">
      {offered.length > 0 ? (
        <ul className="comment-bank__list" aria-label={`Comments for question ${questionLabel}`}>
          {offered.map(({ text, note }) => (
            <li key={`${note}:${text}`}>
              <button type="button" className="comment-bank__item" disabled={disabled} title={text} onClick={() => onInsert(text)}>
                <span className="comment-bank__text">{text}</span>
                <span className="comment-bank__note">{note === "saved" ? "saved" : `given ${note}`}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {written && !alreadySaved ? (
        <button
          type="button"
          className="comment-bank__save"
          disabled={disabled || save.isPending}
          onClick={() => save.mutate({ question_id: questionId, body: { text: written } })}
        >
          {save.isPending ? "Saving the comment…" : `Save this comment for question ${questionLabel}`}
        </button>
      ) : null}
      {save.isError ? (
        <p className="field__error" role="alert">
          {errorMessage(save.error)}
        </p>
      ) : null}
    </div>
  );
}
