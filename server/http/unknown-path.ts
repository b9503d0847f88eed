import { AppError, detailResponse } from "../errors";

/**
 * The answer to a path under /api, /database or /graph that names no operation (a typo, an old
 * client): the contract's 404 with a `{detail}` body (docs/spec/classroom-api.md "Errors") a tool can read, instead
 * of the web app's HTML
 * page. Next.js routes every path a route file matches first; only the rest reach this.
 */
function unknownApiPath(request: Request): Response {
  const { pathname } = new URL(request.url);
  return detailResponse(new AppError("not_found", `Nothing at ${pathname}: /api/openapi.json lists the API's paths`));
}

/** Every method of a catch-all route file answers the same. */
export const unknownApiPathRoute = {
  GET: unknownApiPath,
  POST: unknownApiPath,
  PUT: unknownApiPath,
  PATCH: unknownApiPath,
  DELETE: unknownApiPath,
};
