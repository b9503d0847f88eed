import type { AnyRouteDefinition } from "../../http/route";
import { rosterImportRoutes } from "./roster-imports";

export { schoolTag } from "./school-tag";

/**
 * The school administration routes still written by hand: roster imports (school admins of the caller's
 * school). The people routes are operations of the catalogue (server/identity/operations.ts).
 */
export const schoolRoutes: AnyRouteDefinition[] = [...rosterImportRoutes];
