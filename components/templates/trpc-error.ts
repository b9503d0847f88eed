import { TRPCClientError } from "@trpc/client";

/** A sentence for the user from a tRPC failure: the field message, the server's sentence, or a generic one. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const fieldErrors = (error.data as { zodError?: { fieldErrors?: Record<string, string[]> } } | undefined)?.zodError?.fieldErrors;
    const first = fieldErrors && Object.values(fieldErrors).flat()[0];
    if (first) return first;
    if (error.data?.httpStatus && error.data.httpStatus < 500 && error.message) return error.message;
    if (!error.data) return "The server could not be reached. Check your connection and try again.";
  }
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong on the server. Try again.";
}

/** The tRPC error code (CONFLICT, NOT_FOUND, …) of a failure, when there is one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}
