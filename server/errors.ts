import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { postgresErrorCode } from "./postgres-errors";
import { issueMessage } from "./issue-message";
import { logger } from "./logger";

/** The one error vocabulary of Markbook. Domain code throws these; the edges translate them. */
export const errorCodes = {
  invalid: { status: 400, trpc: "BAD_REQUEST", openaiType: "invalid_request_error", openaiCode: "invalid_parameters" },
  unauthenticated: { status: 401, trpc: "UNAUTHORIZED", openaiType: "authentication_error", openaiCode: "invalid_api_key" },
  forbidden: { status: 403, trpc: "FORBIDDEN", openaiType: "permission_error", openaiCode: "forbidden" },
  not_found: { status: 404, trpc: "NOT_FOUND", openaiType: "invalid_request_error", openaiCode: "not_found" },
  conflict: { status: 409, trpc: "CONFLICT", openaiType: "invalid_request_error", openaiCode: "conflict" },
  too_large: { status: 413, trpc: "PAYLOAD_TOO_LARGE", openaiType: "invalid_request_error", openaiCode: "file_too_large" },
  unsupported_media: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE", openaiType: "invalid_request_error", openaiCode: "invalid_file_format" },
  unprocessable: { status: 422, trpc: "UNPROCESSABLE_CONTENT", openaiType: "invalid_request_error", openaiCode: "invalid_file_format" },
  rate_limited: { status: 429, trpc: "TOO_MANY_REQUESTS", openaiType: "rate_limit_error", openaiCode: "rate_limit_exceeded" },
  internal: { status: 500, trpc: "INTERNAL_SERVER_ERROR", openaiType: "server_error", openaiCode: "internal_error" },
  upstream: { status: 502, trpc: "BAD_GATEWAY", openaiType: "server_error", openaiCode: "upstream_error" },
  unavailable: { status: 503, trpc: "SERVICE_UNAVAILABLE", openaiType: "server_error", openaiCode: "service_unavailable" },
} as const satisfies Record<string, { status: number; trpc: TRPCError["code"]; openaiType: string; openaiCode: string }>;

export type AppErrorCode = keyof typeof errorCodes;

/** Marks every AppError, whichever copy of this module made it (see AppError's Symbol.hasInstance). */
const appErrorBrand = Symbol.for("markbook.AppError");

export class AppError extends Error {
  readonly [appErrorBrand] = true;

  /**
   * `instanceof AppError` checks the brand, not the prototype chain: in a production node the ports
   * that server.ts sets up (imaging, storage) and each Next.js route bundle load their own copy of this
   * module, and an error thrown by one copy must not read as an unknown 500 to another. Subclasses keep
   * the ordinary check.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    if (this !== AppError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[appErrorBrand] === true;
  }

  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** The request parameter at fault, when there is one (OpenAI's `param`). */
    readonly param?: string,
    /**
     * Overrides the OpenAI `code` where the speech contract names a more precise one (docs/spec/speech-api.md
     * "Errors").
     */
    readonly openaiCode?: string,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return errorCodes[this.code].status;
  }
}

/**
 * A reply that breaks its own declared schema (server/http/validated-reply.ts, or tRPC's `.output()`):
 * the server's bug. toAppError logs it and answers a generic 500, on REST and tRPC alike; it is not a
 * ZodError, which reads as the client's bad input (400).
 */
export class ReplySchemaError extends Error {
  constructor(what: string, cause: ZodError) {
    super(`${what}: the reply does not match its schema: ${cause.message}`, { cause });
    this.name = "ReplySchemaError";
  }
}

/** The 400 of the safety net in toAppError: a value the database refused that the edge should have. */
export const DATABASE_REFUSED_VALUE =
  "A value in the request cannot be stored: out of range, too long, or with characters that are not allowed";

export const notFound = (what: string) => new AppError("not_found", `${what} not found`);

/**
 * The error a worker process sent back over its channel: the AppError it threw, made again on this
 * side (its code and sentence), or a plain Error for the log naming the worker (`what`).
 */
export function workerReplyError(what: string, error: { code: string | null; message: string; param?: string }): Error {
  if (error.code && error.code in errorCodes) return new AppError(error.code as AppErrorCode, error.message, error.param);
  return new Error(`${what}: ${error.message}`);
}

/** What a person is told when the database did not answer in time (a 503: try again, not their mistake). */
export const DATABASE_TOO_SLOW = "The database did not answer in time. Please try again in a moment.";

/** Turns anything thrown into an AppError; unknown errors are logged and hidden behind a generic 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError && error.cause instanceof AppError) return error.cause;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    const param = issue?.path.join(".") || undefined;
    return new AppError("invalid", issue ? issueMessage(issue) : "The request is not valid", param);
  }
  const sqlState = postgresErrorCode(error);
  if (sqlState?.startsWith("22") || sqlState === "54000") {
    // The last safety net: the edge schemas (lib/rules/input-rules.ts) should refuse such a value
    // first, so this is logged as a gap to close, and the client gets a 400, not a 500.
    logger.warn(`a value reached the database and was refused (SQLSTATE ${sqlState}): an input schema misses a rule`, error);
    return new AppError("invalid", DATABASE_REFUSED_VALUE);
  }
  if (sqlState === "57014") {
    // Cancelled: past DATABASE_QUERY_TIMEOUT_SECONDS (server/db/client.ts), or PostgreSQL's own statement_timeout.
    logger.warn("a query was cancelled: the database did not answer in time", error);
    return new AppError("unavailable", DATABASE_TOO_SLOW);
  }
  logger.error("unexpected error", error);
  return new AppError("internal", "Internal server error");
}

/** Classroom and exam REST dialect: `{ "detail": "…" }`. */
export function detailResponse(error: unknown, headers?: HeadersInit): Response {
  const appError = toAppError(error);
  return Response.json({ detail: appError.message }, { status: appError.status, headers });
}

/** Speech REST dialect (`/v1`): `{ "error": { message, type, code, param } }`. */
export function openaiErrorBody(error: unknown) {
  const appError = toAppError(error);
  const mapping = errorCodes[appError.code];
  return {
    status: appError.status,
    body: {
      error: {
        message: appError.message,
        type: mapping.openaiType,
        code: appError.openaiCode ?? mapping.openaiCode,
        param: appError.param ?? null,
      },
    },
  };
}

/** The message of the TRPCError that @trpc/server throws when a procedure's `.output()` check fails. */
const TRPC_OUTPUT_CHECK_FAILED = "Output validation failed";

export function toTRPCError(error: unknown): TRPCError {
  // tRPC's input parser wraps zod's issues in a BAD_REQUEST whose message is their JSON; they are read
  // as the REST edge reads them, so both name the field in one sentence. Its output check wraps them
  // too, under its own message: a reply that breaks its schema, a 500 as on REST.
  if (error instanceof TRPCError && error.cause instanceof ZodError && error.message === TRPC_OUTPUT_CHECK_FAILED) {
    return toTRPCError(new ReplySchemaError("tRPC procedure", error.cause));
  }
  const translated = error instanceof TRPCError && (error.cause instanceof AppError || error.cause instanceof ZodError);
  if (error instanceof TRPCError && !translated && error.code !== "INTERNAL_SERVER_ERROR") {
    return error;
  }
  const appError = toAppError(error instanceof TRPCError ? (error.cause ?? error) : error);
  return new TRPCError({ code: errorCodes[appError.code].trpc, message: appError.message, cause: appError });
}
