import type { z } from "zod";
import type { AuthenticatedUser } from "../auth/authenticated-user";
import { detailResponse } from "../errors";
import { serveCachedReply } from "../http/reply-cache";
import { type AnyRouteDefinition, type ReplySpec, type StreamedBodySpec, type StreamedRequestBody, cachedJsonReply, defineRoute, jsonBody, jsonReply, nextRoute } from "../http/route";
import { type AnyOperation, type OperationSet, operationRoles, pathParameterNames } from "./define";
import { runOperation } from "./run";

/**
 * The REST side of the operation catalogue: each operation's REST face becomes the route definition
 * that `nextRoute` serves and server/http/openapi.ts documents, exactly as a hand-written
 * `defineRoute` would say it. Derived once per operation, so the route file's export, the list in
 * server/rest-routes.ts and the document hold the same definition.
 */

const derived = new WeakMap<AnyOperation, AnyRouteDefinition>();

type ObjectSchema = z.ZodObject;

/** The route definition of an operation's REST face. */
export function restRouteOf(operation: AnyOperation, name = operation.rest?.operationId ?? "an operation"): AnyRouteDefinition {
  const known = derived.get(operation);
  if (known) return known;
  const face = operation.rest;
  if (!face) throw new Error(`${name} has no REST face`);
  const where = `${face.method} ${face.path}`;
  if (operation.temporaryPassword) throw new Error(`${where}: REST refuses a temporary password; only a tRPC operation may allow one`);
  if ((face.method === "GET") !== (operation.kind === "query")) throw new Error(`${where}: a query is a GET and a GET a query`);

  const input = operation.input as ObjectSchema | undefined;
  if (input && !("shape" in input)) throw new Error(`${where}: a REST face needs an object input (not one the caller may leave out)`);
  const pathNames = pathParameterNames(face.path);
  const members = input ? Object.keys(input.shape) : [];
  const missing = pathNames.filter((pathName) => !members.includes(pathName));
  if (missing.length > 0) throw new Error(`${where}: the path's {${missing.join("}, {")}} is not a member of the input`);
  // zod types the mask by the schema's keys, which a generic operation does not know.
  const pick = (names: string[]) => Object.fromEntries(names.map((member) => [member, true])) as never;
  const picked = pathNames.length > 0 ? input!.pick(pick(pathNames)) : undefined;
  const described = Object.entries(face.pathDescriptions ?? {});
  const undescribed = described.filter(([pathName]) => !pathNames.includes(pathName)).map(([pathName]) => pathName);
  if (undescribed.length > 0) throw new Error(`${where}: {${undescribed.join("}, {")}} is described but not in the path`);
  const params =
    picked && described.length > 0
      ? picked.extend(Object.fromEntries(described.map(([pathName, description]) => [pathName, (picked.shape[pathName] as z.ZodType).describe(description)])))
      : picked;
  const streamed = face.streamedBody as StreamedBodySpec | undefined;
  if (streamed && operation.trpc !== false) throw new Error(`${where}: a streamed body reaches REST only; say trpc: false`);
  // A streamed body is the request's own: the input's other members come from the query string.
  const readsQuery = face.method === "GET" || face.method === "DELETE" || streamed !== undefined;
  const bodyMember = face.bodyMember;
  if (bodyMember !== undefined) {
    if (readsQuery) throw new Error(`${where}: a ${face.method} has no body for the input's ${bodyMember}`);
    const others = members.filter((member) => member !== bodyMember && !pathNames.includes(member));
    if (!members.includes(bodyMember)) throw new Error(`${where}: the body's ${bodyMember} is not a member of the input`);
    if (others.length > 0) throw new Error(`${where}: the input's ${others.join(", ")} is neither in the path nor the body's ${bodyMember}`);
  }
  // The input itself when nothing is taken from the path, so its schema (refinements and all) is the one parsed and documented.
  const rest =
    bodyMember !== undefined
      ? (input!.shape[bodyMember] as ObjectSchema)
      : !input || members.length === pathNames.length
        ? undefined
        : pathNames.length > 0
          ? input.omit(pick(pathNames))
          : input;

  const forbidden = operationRoles[operation.role].forbidden;
  if (operation.role !== "signed-in" && !forbidden && !face.errors[403]) throw new Error(`${where}: say the 403 of a caller without the role ${operation.role}`);
  if (face.file && !face.respond) throw new Error(`${where}: a file reply needs respond() to make its Response`);
  if (!face.file && !operation.output) throw new Error(`${where}: a JSON reply needs the operation's output schema`);
  if (face.replies && (face.status !== undefined || face.reply !== undefined || face.file || face.cache)) {
    throw new Error(`${where}: replies says every JSON reply; leave out status, reply, file and cache`);
  }
  if (face.replies && !face.respond) throw new Error(`${where}: several replies need respond() to choose the status`);
  if (face.cache && (face.file || face.respond || face.method !== "GET")) throw new Error(`${where}: a cached reply is a GET's JSON, as the handler answers it`);
  const output = operation.output as z.ZodType;
  const replies: Partial<Record<200 | 201 | 202, ReplySpec>> = face.replies
    ? Object.fromEntries(Object.entries(face.replies).map(([status, description]) => [status, jsonReply(output, description)]))
    : { [face.status ?? 200]: face.file ?? (face.cache ? cachedJsonReply(output, face.reply ?? "") : jsonReply(output, face.reply ?? "")) };
  const deferred = face.deferredAuthentication;

  const definition = defineRoute({
    method: face.method,
    path: face.path,
    operationId: face.operationId,
    tags: face.tags,
    summary: face.summary,
    ...(face.description ? { description: face.description } : {}),
    auth: deferred ? { deferred: deferred.authenticate } : ("bearer" as const),
    params,
    query: readsQuery ? rest : undefined,
    body: streamed ?? (!readsQuery && rest ? jsonBody(rest, { example: face.example, maxBytes: face.maxBytes }) : undefined),
    replies,
    errors: { ...(forbidden ? { 403: forbidden } : {}), ...face.errors },
    handler: async (context) => {
      const { request, db, params: fromPath, query, body } = context;
      const fromBody = streamed ? {} : bodyMember !== undefined ? { [bodyMember]: body } : (body as object);
      const values = { ...(query as object), ...fromBody, ...(fromPath as object) };
      let caller: AuthenticatedUser;
      if (deferred) {
        deferred.judgeFirst(values);
        caller = await (context as unknown as { authenticate: () => Promise<AuthenticatedUser> }).authenticate();
      } else {
        caller = (context as unknown as { user: AuthenticatedUser }).user;
      }
      try {
        if (face.cache) {
          const rule = await face.cache({ db, caller, input: values });
          return await serveCachedReply(request, db, where, output, rule.sharing, rule.produce ?? (() => runOperation(operation, db, caller, values)));
        }
        const result = await runOperation(operation, db, caller, values, streamed ? { upload: body as StreamedRequestBody } : undefined);
        return face.respond ? face.respond(result) : (result as never);
      } catch (error) {
        const headers = face.errorHeaders?.(error);
        if (headers) return detailResponse(error, headers);
        throw error;
      }
    },
  }) as AnyRouteDefinition;
  derived.set(operation, definition);
  return definition;
}

/** The route definitions of a domain's operations that have a REST face, in the order the domain lists them. */
export const restRoutesOf = (operations: OperationSet): AnyRouteDefinition[] =>
  Object.entries(operations)
    .filter(([, operation]) => operation.rest)
    .map(([name, operation]) => restRouteOf(operation, name));

const handlers = new WeakMap<AnyRouteDefinition, ReturnType<typeof nextRoute>>();

/**
 * The Next.js export of the catalogue's operation at `METHOD path` (`export const GET = operationRoute(...)`
 * in app/api/…/route.ts). Throws when the module loads if no operation has that face, so a route file
 * cannot serve nothing.
 */
export function operationRouteIn(operations: AnyOperation[], method: string, path: string): ReturnType<typeof nextRoute> {
  const operation = operations.find((candidate) => candidate.rest?.method === method && candidate.rest.path === path);
  if (!operation) throw new Error(`No operation of the catalogue answers ${method} ${path}`);
  const definition = restRouteOf(operation);
  let handler = handlers.get(definition);
  if (!handler) handlers.set(definition, (handler = nextRoute(definition)));
  return handler;
}
