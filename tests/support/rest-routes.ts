import fs from "node:fs";
import path from "node:path";
import { buildOpenApiDocument } from "../../server/composition/openapi-document";
import { type HttpMethod, httpMethods } from "../../server/http/route";

/**
 * Every REST route of the app, found on disk (each `route.ts` under app/) and matched to its operation in
 * the OpenAPI document, so that tests which must cover every route (the hostile-input fuzz, the
 * cross-school matrix) cannot forget one: a new route file is in this list the moment it exists.
 */

const appDirectory = path.resolve(import.meta.dirname, "../../app");
export { httpMethods, type HttpMethod };

/** Route files that are not part of the REST surface for tools (next-auth, tRPC, the document itself, the unknown paths' 404). */
const notRestSurface = ["api/auth/[...nextauth]", "api/trpc/[trpc]", "api/openapi.json", ...["api", "database", "graph"].map((area) => `${area}/[...unknown]`)];

type RouteHandler = (request: Request, route?: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface RestRoute {
  /** The file's folder under app/, e.g. `api/exam/batches/[batch_id]/queue`. */
  folder: string;
  /** The OpenAPI path of the same route, e.g. `/api/exam/batches/{batch_id}/queue`. */
  openApiPath: string;
  /** Names of the dynamic segments in the route file (`batchId`), in order. */
  paramNames: string[];
  methods: HttpMethod[];
  /** The OpenAPI operation of each method (undefined when the document lacks it: a test should fail). */
  operations: Partial<Record<HttpMethod, OpenApiOperation>>;
  handler(method: HttpMethod): RouteHandler;
}

interface OpenApiOperation {
  parameters?: { name: string; in: "query" | "path" | "header"; required?: boolean; schema?: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: unknown }> };
  responses: Record<string, unknown>;
}

/** The folders under app/ that hold a `route.ts` of the REST surface. */
export const restRouteFolders = () => routeFolders().filter((folder) => !notRestSurface.includes(folder));

function routeFolders(directory = appDirectory): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...routeFolders(full));
    else if (entry.name === "route.ts") found.push(path.relative(appDirectory, directory).split(path.sep).join("/"));
  }
  return found.sort();
}

/** The OpenAPI path of a route folder: `[batch_id]` is `{batch_id}` (route definitions use the folder's names). */
export const openApiPathOf = (folder: string) => `/${folder}`.replace(/\[([^\]]+)\]/g, "{$1}");

/** A route file's module: its method exports, and `dynamic`. */
export const loadRouteModule = async (folder: string) =>
  (await import(/* @vite-ignore */ path.join(appDirectory, folder, "route.ts"))) as Record<string, unknown>;

export async function loadRestRoutes(): Promise<RestRoute[]> {
  const document = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, OpenApiOperation>> };
  const routes: RestRoute[] = [];
  for (const folder of restRouteFolders()) {
    const module = await loadRouteModule(folder);
    const methods = httpMethods.filter((method) => typeof module[method] === "function");
    const openApiPath = openApiPathOf(folder);
    const item = document.paths[openApiPath] ?? {};
    routes.push({
      folder,
      openApiPath,
      paramNames: [...folder.matchAll(/\[([^\]]+)\]/g)].map((match) => match[1]!),
      methods,
      operations: Object.fromEntries(methods.map((method) => [method, item[method.toLowerCase()]])),
      handler: (method) => module[method] as RouteHandler,
    });
  }
  return routes;
}

export interface RouteCall {
  /** Values of the dynamic segments, by position (`paramNames` order). */
  params?: string[];
  query?: Record<string, string> | URLSearchParams;
  headers?: Record<string, string>;
  body?: BodyInit | null;
}

/** Calls a route's handler as Next would: a Request for its URL, and its params as a promise. */
export async function callRoute(route: RestRoute, method: HttpMethod, call: RouteCall = {}): Promise<Response> {
  const values = call.params ?? [];
  let index = 0;
  const urlPath = `/${route.folder}`.replace(/\[[^\]]+\]/g, () => encodeURIComponent(values[index++] ?? ""));
  const url = new URL(`http://localhost${urlPath}`);
  for (const [name, value] of new URLSearchParams(call.query ?? {})) url.searchParams.append(name, value);
  const request = new Request(url, {
    method,
    headers: call.headers,
    body: method === "GET" ? undefined : call.body,
    ...(call.body instanceof ReadableStream ? { duplex: "half" } : {}),
  });
  const params = Object.fromEntries(route.paramNames.map((name, position) => [name, values[position] ?? ""]));
  return route.handler(method)(request, { params: Promise.resolve(params) });
}
