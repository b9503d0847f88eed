import { TRPCClientError } from "@trpc/client";

/**
 * A sentence for the user from a failed call: the first input problem (tRPC sends zod's issues as JSON
 * text), the server's own sentence for a 4xx, a word about the connection when the server was not
 * reached, else a generic one. Never a stack or a 500's inner message.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    if (!error.data) return "The server could not be reached. Check your connection and try again.";
    const status = (error.data as { httpStatus?: number }).httpStatus;
    if (status && status < 500 && error.message) return firstIssue(error.message) ?? error.message;
    return "Something went wrong on the server. Try again.";
  }
  // Errors of our own (an upload's XHR, say) carry a sentence meant for the user.
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong on the server. Try again.";
}

function firstIssue(message: string): string | null {
  if (!message.trimStart().startsWith("[")) return null;
  try {
    const issue = (JSON.parse(message) as Array<{ message?: string; path?: unknown[] }>)[0];
    if (!issue?.message) return null;
    return issue.path?.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
  } catch {
    return null;
  }
}

/** The tRPC code of a failure (CONFLICT, NOT_FOUND, FORBIDDEN…), when there is one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}
