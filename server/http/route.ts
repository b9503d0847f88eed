import { z } from "zod";
import type { AuthenticatedUser } from "../auth/authenticated-user";
import { CHOOSE_PASSWORD_FIRST, MISSING_BEARER_TOKEN, authenticateRequest } from "../auth/authenticate";
import type { Db } from "../db/client";
import { getDatabase } from "../db/client";
import { AppError, detailResponse } from "../errors";
import { recordId } from "./record-id";
import { readBoundedBody, readJsonBody } from "./request-body";
import { validatedReply } from "./validated-reply";

/**
 * One REST route, said once: method, path, who may call it, what it reads (path, query, body), what it
 * answers (replies and error statuses) and its handler. `nextRoute` makes the Next.js export from it
 * (parsing, authentication, reply validation, the `{detail}` error dialect) and
 * `server/http/openapi.ts` its OpenAPI operation. Nobody writes one by hand any more: every route is an
 * operation's REST face, which server/operations/rest.ts turns into this definition.
 */

export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof httpMethods)[number];

type JsonSchema = Record<string, unknown>;

/** Statuses a route may answer besides its replies (401 comes with authentication, for every route). */
export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 422 | 500 | 502 | 503;

/** A JSON reply checked against its schema before it leaves: a reply that breaks it is a logged 500. */
export interface JsonReplySpec<Schema extends z.ZodType = z.ZodType> {
  kind: "json";
  schema: Schema;
  description: string;
}

/** A JSON list served by the reply cache (server/classroom/reply-cache.ts): 200 with an ETag, or 304. */
export interface CachedJsonReplySpec {
  kind: "cached-json";
  schema: z.ZodType;
  description: string;
}

/** Bytes that are not JSON (a PDF, a CSV): the handler answers a Response with the headers it needs. */
export interface FileReplySpec {
  kind: "file";
  contentType: string;
  schema: JsonSchema;
  description: string;
}

export type ReplySpec = JsonReplySpec | CachedJsonReplySpec | FileReplySpec;
/** Success statuses: 202 for work accepted and done in the background (a scanned pile read by a job). */
type SuccessStatus = 200 | 201 | 202;
type Replies = Partial<Record<SuccessStatus, ReplySpec>>;

export const jsonReply = <Schema extends z.ZodType>(schema: Schema, description: string): JsonReplySpec<Schema> => ({ kind: "json", schema, description });
export const cachedJsonReply = (schema: z.ZodType, description: string): CachedJsonReplySpec => ({ kind: "cached-json", schema, description });
export const fileReply = (contentType: string, description: string, schema: JsonSchema = { type: "string" }): FileReplySpec => ({
  kind: "file",
  contentType,
  schema,
  description,
});

/** A JSON body, read by the one JSON body reader (request-body.ts) and parsed with `schema`. */
export interface JsonBodySpec<Schema extends z.ZodType = z.ZodType> {
  kind: "json";
  schema: Schema;
  maxBytes?: number;
  /** Shown in the 400 for a body that is not JSON. */
  example?: string;
}

/** A body the handler streams itself (an upload); `schema` documents it. */
export interface StreamedBodySpec {
  kind: "streamed";
  contentType: string;
  schema: JsonSchema;
}

export type BodySpec = JsonBodySpec | StreamedBodySpec;

export const jsonBody = <Schema extends z.ZodType>(schema: Schema, options: { maxBytes?: number; example?: string } = {}): JsonBodySpec<Schema> => ({
  kind: "json",
  schema,
  ...options,
});
export const streamedBody = (contentType: string, schema: JsonSchema): StreamedBodySpec => ({ kind: "streamed", contentType, schema });

/** What a handler gets of a streamed body: never read before the handler asks for it. */
export interface StreamedRequestBody {
  contentType: string | null;
  /** The declared Content-Length when it is a plain number, so an upload too large is refused before reading. */
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
  /** The whole body, refused with 413 as soon as it grows past `maxBytes` (readBoundedBody). */
  read(maxBytes: number): Promise<Uint8Array>;
}

/**
 * Who may call. "bearer": any signed-in user, authenticated before the input is read (401 otherwise).
 * A deferred authenticator is called by the handler, after it has judged the input: for the canvas
 * routes, whose contract puts the path rule before the token rule
 * (docs/spec/classroom-api.md "Canvas snapshot read rules" 1, 6).
 */
export type RouteAuth = "bearer" | { deferred: (db: Db, request: Request) => Promise<{ id: string }> };

type Parsed<Schema> = Schema extends z.ZodType ? z.output<Schema> : undefined;
type ParsedBody<Body> = Body extends JsonBodySpec<infer Schema> ? z.output<Schema> : Body extends StreamedBodySpec ? StreamedRequestBody : undefined;

interface BaseContext<Params, Query, Body> {
  request: Request;
  db: Db;
  params: Parsed<Params>;
  query: Parsed<Query>;
  body: ParsedBody<Body>;
}

type RouteContext<Params, Query, Body, Auth> = BaseContext<Params, Query, Body> &
  (Auth extends "bearer" ? { user: AuthenticatedUser } : { authenticate: () => Promise<{ id: string }> });

/** A reply with a status other than the route's first, or with headers. */
export class StatusReply {
  constructor(
    readonly status: SuccessStatus,
    readonly body: unknown,
    readonly headers?: HeadersInit,
  ) {}
}

export const replyWith = (status: SuccessStatus, body: unknown, headers?: HeadersInit) => new StatusReply(status, body, headers);

type JsonReplyInput<R extends Replies> = { [Status in keyof R]: R[Status] extends JsonReplySpec<infer Schema> ? z.input<Schema> : never }[keyof R];

/** What names a REST route and describes it in the OpenAPI document. */
export interface RouteIdentity {
  method: HttpMethod;
  /** The OpenAPI path; its `{name}` segments are the route folder's `[name]` segments under app/. */
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
}

export interface RouteDefinition<
  Params extends z.ZodObject | undefined = z.ZodObject | undefined,
  Query extends z.ZodObject | undefined = z.ZodObject | undefined,
  Body extends BodySpec | undefined = BodySpec | undefined,
  R extends Replies = Replies,
  Auth extends RouteAuth = RouteAuth,
> extends RouteIdentity {
  auth: Auth;
  params?: Params;
  query?: Query;
  body?: Body;
  replies: R;
  /** Every status besides the replies and 401 that the route can answer, with what it means here. */
  errors: Partial<Record<ErrorStatus, string>>;
  handler(context: RouteContext<Params, Query, Body, Auth>): Promise<Response | StatusReply | JsonReplyInput<R>>;
}

/** A route definition, typed: the handler's context follows from its schemas and its auth. */
export function defineRoute<
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
  Body extends BodySpec | undefined = undefined,
  R extends Replies = Replies,
  Auth extends RouteAuth = "bearer",
>(definition: RouteDefinition<Params, Query, Body, R, Auth>): RouteDefinition<Params, Query, Body, R, Auth> {
  return definition;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry holds routes of every shape
export type AnyRouteDefinition = RouteDefinition<any, any, any, any, any>;

type NextRouteHandler = (request: Request, route?: { params: Promise<Record<string, string>> }) => Promise<Response>;

const definitionKey = Symbol("markbook.routeDefinition");

/** The definition behind a Next.js route export (for the test that every route file is documented). */
export function routeDefinitionOf(handler: unknown): AnyRouteDefinition | undefined {
  return typeof handler === "function" ? (handler as unknown as Record<symbol, AnyRouteDefinition>)[definitionKey] : undefined;
}

/** The Next.js export (`export const GET = nextRoute(definition)`) of a route definition. */
export function nextRoute(definition: AnyRouteDefinition): NextRouteHandler {
  const handler: NextRouteHandler = async (request, route) => {
    try {
      return await answer(definition, request, route ? await route.params : {});
    } catch (error) {
      return detailResponse(error);
    }
  };
  return Object.assign(handler, { [definitionKey]: definition });
}

async function answer(definition: AnyRouteDefinition, request: Request, pathValues: Record<string, string>): Promise<Response> {
  const { db } = await getDatabase();
  const auth: RouteAuth = definition.auth;
  const caller = auth === "bearer" ? { user: await authenticateRestCaller(db, request.headers) } : { authenticate: () => auth.deferred(db, request) };
  const input = {
    params: definition.params?.parse(pathValues),
    query: definition.query?.parse(queryValues(new URL(request.url))),
    body: await readBody(definition.body, request),
  };
  return toResponse(definition, await definition.handler({ request, db, ...input, ...caller }));
}

/** REST has no public routes: a caller without a valid credential is told which one is missing. */
async function authenticateRestCaller(db: Db, headers: Headers): Promise<AuthenticatedUser> {
  const user = await authenticateRequest(db, headers);
  if (user?.mustChoosePassword) throw new AppError("forbidden", CHOOSE_PASSWORD_FIRST);
  if (user) return user;
  throw new AppError(
    "unauthenticated",
    headers.has("cookie") ? "Sign in first (no valid session cookie or bearer token)" : MISSING_BEARER_TOKEN,
  );
}

/**
 * The query string as the route's schema reads it, one rule for every route: a parameter given twice
 * counts once (the last value, as most frameworks read it), and one given with nothing after it
 * (`?status=`) is absent, as HTML forms and most tools mean it.
 */
export function queryValues(url: URL): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (value === "") delete values[name];
    else values[name] = value;
  }
  return values;
}

async function readBody(spec: BodySpec | undefined, request: Request): Promise<unknown> {
  if (!spec) return undefined;
  if (spec.kind === "json") return spec.schema.parse(await readJsonBody(request, { maxBytes: spec.maxBytes, example: spec.example }));
  const length = request.headers.get("content-length");
  return {
    contentType: request.headers.get("content-type"),
    contentLength: length && /^\d+$/.test(length) ? Number(length) : null,
    body: request.body,
    read: (maxBytes) => readBoundedBody(request, maxBytes),
  } satisfies StreamedRequestBody;
}

function toResponse(definition: AnyRouteDefinition, result: unknown): Response {
  if (result instanceof Response) return result;
  const { status, body, headers } = result instanceof StatusReply ? result : { status: firstReplyStatus(definition), body: result, headers: undefined };
  const spec = (definition.replies as Replies)[status];
  if (spec?.kind !== "json") throw new Error(`${definition.method} ${definition.path}: no JSON reply with status ${status} is declared`);
  return Response.json(validatedReply(spec.schema, body, `${definition.method} ${definition.path}`), { status, headers });
}

const firstReplyStatus = (definition: AnyRouteDefinition) => Number(Object.keys(definition.replies)[0]) as SuccessStatus;

/** The usual meanings of error statuses in operation descriptions. */
export const errorMeaning = {
  invalid: "Invalid input; detail names the field",
  notVisible: "Not found, or outside the caller's scope",
} as const;

/** The path parameter of a route about one record (`{mark_id}`), where no domain schema names it already. */
export function recordPath<Name extends string>(name: Name, what: string, description = `${what} id`) {
  return z.object({ [name]: recordId(what).describe(description) } as Record<Name, ReturnType<typeof recordId>>);
}
