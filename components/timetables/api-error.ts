import { TRPCClientError } from "@trpc/client";

/**
 * A sentence for the user from a failed call: the server's own sentence for a 4xx, the first issue of
 * an input validation error (tRPC sends zod's issues as JSON text), else a generic one.
 */
export function apiErrorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus;
    if (!error.data) return "The server could not be reached. Check your connection and try again.";
    if (status && status < 500 && error.message) return firstIssue(error.message) ?? error.message;
  }
  return "Something went wrong on the server. Try again.";
}

function firstIssue(message: string): string | null {
  if (!message.trimStart().startsWith("[")) return null;
  try {
    const issues = JSON.parse(message) as Array<{ message?: string; path?: unknown[] }>;
    const issue = issues[0];
    if (!issue?.message) return null;
    return issue.path?.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
  } catch {
    return null;
  }
}

/** The tRPC code of a failure (CONFLICT, NOT_FOUND, FORBIDDEN…), when there is one. */
export function apiErrorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}
