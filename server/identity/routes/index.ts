import type { AnyRouteDefinition } from "../../http/route";
import { peopleRoutes } from "./people";
import { rosterImportRoutes } from "./roster-imports";

export { schoolTag } from "./school-tag";

/** The school administration routes: people and roster imports (school admins of the caller's school). */
export const schoolRoutes: AnyRouteDefinition[] = [...peopleRoutes, ...rosterImportRoutes];
