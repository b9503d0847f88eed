import { TRPCClientError } from "@trpc/client";

/**
 * A sentence for the user from a failed call: the server's own sentence for a 4xx (input problems
 * included: server/errors.ts toTRPCError names the field), a word about the connection when the server was not
 * reached, else a generic one. Never a stack or a 500's inner message.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    if (!error.data) return "The server could not be reached. Check your connection and try again.";
    const status = (error.data as { httpStatus?: number }).httpStatus;
    if (status && status < 500 && error.message) return error.message;
    return "Something went wrong on the server. Try again.";
  }
  // Errors of our own (an upload's XHR, say) carry a sentence meant for the user.
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong on the server. Try again.";
}

/** The tRPC code of a failure (CONFLICT, NOT_FOUND, FORBIDDEN…), when there is one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}
