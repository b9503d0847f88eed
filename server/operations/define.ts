import type { z } from "zod";
import type { AuthenticatedUser } from "../auth/authenticated-user";
import type { Db, Tx } from "../db/client";
import type { Sharing } from "../http/reply-cache";
import type { ErrorStatus, FileReplySpec, RouteIdentity, StatusReply, StreamedBodySpec, StreamedRequestBody } from "../http/route";

/**
 * One operation, said once (issue 34, item 1): its name, input and output schemas, whether it reads
 * or writes, the transaction its domain function runs in, the coarse role it requires, the handler
 * (one domain function, called with named arguments) and, when tools call it over HTTP, its REST face.
 * A domain lists its operations in its own folder (server/identity/operations.ts); server/operation-catalogue.ts
 * lists the domains; the tRPC routers (server/trpc/operations.ts), the Next.js route exports and the
 * REST definitions behind /api/openapi.json (server/operations/rest.ts) and the cross-school matrix's
 * expectations (tests/tenant-matrix.test.ts) are derived from them.
 *
 * This file is declarations only: a domain imports it without pulling tRPC or the HTTP edge in.
 */

/**
 * The coarse role an operation requires, as declared: the OpenAPI document's 403 and the cross-school
 * matrix's expectation for each role. Row-level security and the domain functions stay the authority;
 * nothing is refused here.
 */
export const operationRoles = {
  /** Anyone signed in (who has chosen their own password, unless `temporaryPassword` says otherwise). */
  "signed-in": { forbidden: undefined },
  /** School admins, department heads and teachers (the REST face says its 403: the sentences differ today). */
  staff: { forbidden: undefined },
  /** School admins and department heads (the REST face says its 403). */
  "timetable-manager": { forbidden: undefined },
  /** School admins of the caller's school. */
  "school-admin": { forbidden: "The caller is not a school admin of their school" },
} as const satisfies Record<string, { forbidden: string | undefined }>;
export type OperationRole = keyof typeof operationRoles;

/**
 * Where the domain function runs: `as-user` gets a transaction under row-level security as the caller
 * (`tx`), what nearly every operation wants; `database` gets the database handle (`db`), for a domain
 * function that opens its own transactions (throttling, say, whose count must outlive a refusal).
 */
export type TransactionMode = "as-user" | "database";

/** An object, or (tRPC only: a REST face needs an object) an object the caller may leave out (`z.object({...}).optional()`). */
type AnyObjectSchema = z.ZodType<Record<string, unknown> | undefined, Record<string, unknown> | undefined>;
type InputOf<Input> = Input extends z.ZodType ? z.output<Input> : undefined;
type ResultOf<Output> = Output extends z.ZodType ? z.input<Output> : unknown;

/**
 * What a handler is given: the transaction (or the database), the caller, and the parsed input; and the
 * request's body, unread, when the REST face streams it (`upload`).
 */
type OperationContext<Input, Mode extends TransactionMode, Upload> = { caller: AuthenticatedUser; input: InputOf<Input> } & (Mode extends "as-user"
  ? { tx: Tx }
  : { db: Db }) &
  (Upload extends StreamedBodySpec ? { upload: StreamedRequestBody } : unknown);

/**
 * How a cached reply is shared (server/http/reply-cache.ts; the keys and versions are the domain's):
 * `sharing` null computes the reply for this caller alone. `produce`, when given, computes the reply in
 * the handler's stead, for a domain whose sharing read already judged the caller's access.
 */
export interface CacheRule {
  sharing: Sharing | null;
  produce?: () => Promise<unknown>;
}

/**
 * The REST face of an operation, as the contract says it. Its parameters come from the operation's
 * input: the `{name}` segments of `path` are those members of the input (path parameters), the other
 * members are the query string (GET, DELETE) or the JSON body (POST, PUT, PATCH), or the body is one
 * member of the input (`bodyMember`). The reply is the operation's output (JSON, checked before it leaves) with status `status`, unless `file` says it is
 * bytes, which `respond` turns into the Response.
 */
interface RestFace<Result = unknown, Input = unknown, Upload = undefined> extends RouteIdentity {
  /** The success status: 200 unless said (201 for something made, 202 for work accepted). */
  status?: 200 | 201 | 202;
  /** The JSON reply's description in the document. */
  reply?: string;
  /**
   * A JSON reply with more than one success status (a preview 200 beside the write's 201), each described:
   * `respond` says which (`replyWith(201, …)`). Instead of `status` and `reply`.
   */
  replies?: Partial<Record<200 | 201 | 202, string>>;
  /**
   * The body is not JSON but the file itself, read by the handler as a stream (`upload`: an upload of a
   * PDF or a roster, bounded as it is read: server/http/request-body.ts, multipart.ts); the document shows
   * this spec (`streamedBody(contentType, schema)`). REST only: the operation says `trpc: false`.
   */
  streamedBody?: Upload;
  /**
   * The reply goes through the reply cache: 200 with an ETag, or 304 for a caller who holds it. The
   * domain says how it is shared (server/classroom/reply-cache.ts).
   */
  cache?: (context: { db: Db; caller: AuthenticatedUser; input: Input }) => Promise<CacheRule>;
  /**
   * Authentication after part of the input is judged, where the contract orders it so (the canvas
   * routes: the path rule before the token rule, docs/spec/classroom-api.md "Canvas snapshot read rules"
   * 1, 6): `judgeFirst` runs on the parsed input, then `authenticate` names the caller.
   */
  deferredAuthentication?: { judgeFirst: (input: Input) => void; authenticate: (db: Db, request: Request) => Promise<AuthenticatedUser> };
  /** Headers a refusal carries, for the errors that need them (a scan that should go up as a pile). */
  errorHeaders?: (error: unknown) => HeadersInit | undefined;
  /** A reply that is not JSON (a PDF, a CSV): `respond` makes the Response from the handler's result. */
  file?: FileReplySpec;
  respond?: (result: Result) => Response | StatusReply;
  /**
   * When the JSON body is one member of the input rather than its other members: tRPC's
   * `{ mark_id, body: {...} }` beside REST's `PUT /api/exam/marks/{mark_id}` with the body flat.
   * The input then holds the path's members and this one only.
   */
  bodyMember?: string;
  /**
   * A path parameter's description in the document when the route says it otherwise than the input's
   * schema (`{ user_id: "The marker's user id" }` where tRPC's input says "Marker id").
   */
  pathDescriptions?: Record<string, string>;
  /** Shown in the 400 for a body that is not JSON. */
  example?: string;
  maxBytes?: number;
  /** Every status besides the reply, 401 and the role's 403 that the route can answer, with what it means here. */
  errors: Partial<Record<ErrorStatus, string>>;
}

export interface OperationDefinition<
  Input extends AnyObjectSchema | undefined = AnyObjectSchema | undefined,
  Output extends z.ZodType | undefined = z.ZodType | undefined,
  Mode extends TransactionMode = TransactionMode,
  Kind extends "query" | "mutation" = "query" | "mutation",
  Trpc extends boolean = boolean,
  Result = ResultOf<Output>,
  Upload extends StreamedBodySpec | undefined = StreamedBodySpec | undefined,
> {
  /** A read (tRPC query, REST GET) or a write (mutation). */
  kind: Kind;
  input?: Input;
  /** The reply's schema: tRPC's `.output`, the REST JSON reply (checked before it leaves). */
  output?: Output;
  transaction: Mode;
  role: OperationRole;
  /** true only for choosing one's own password: a caller who still holds a temporary one may call it (tRPC only). */
  temporaryPassword?: boolean;
  /** false for an operation tools call over REST only (a file, say); otherwise it is a tRPC procedure of its domain. */
  trpc?: Trpc;
  rest?: RestFace<Result, InputOf<Input>, Upload>;
  /** One domain function, called with named arguments. */
  handler(context: OperationContext<Input, Mode, Upload>): Promise<Result>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalogue holds operations of every shape
export type AnyOperation = OperationDefinition<any, any, any, any, any, any, any>;

/** An operation, typed: its handler's context and result follow from its schemas and its transaction mode. */
export function defineOperation<
  Input extends AnyObjectSchema | undefined = undefined,
  Output extends z.ZodType | undefined = undefined,
  Mode extends TransactionMode = "as-user",
  Kind extends "query" | "mutation" = "query" | "mutation",
  Trpc extends boolean = true,
  Result = ResultOf<Output>,
  Upload extends StreamedBodySpec | undefined = undefined,
>(
  definition: OperationDefinition<Input, Output, Mode, Kind, Trpc, Result, Upload>,
): OperationDefinition<Input, Output, Mode, Kind, Trpc, Result, Upload> {
  return definition;
}

/** A domain's operations by name: the name is the tRPC procedure's (`people.list`) and the catalogue's. */
export type OperationSet = Record<string, AnyOperation>;

/** The `{name}` segments of a REST path, in order. */
export const pathParameterNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
