import { classroomRoutes, classroomTag } from "./classroom/routes";
import { examRoutes, examTag } from "./exam/routes";
import { graphRoutes, graphTag } from "./graph/routes";
import type { AnyRouteDefinition } from "./http/route";
<<<<<<< HEAD
import { peopleRoutes, peopleTag } from "./identity/routes";
=======
import { rosterImportRoutes, schoolTag } from "./identity/routes/roster-imports";
>>>>>>> h17-import

/**
 * Every REST route of Markbook, as the OpenAPI document lists them. Each `route.ts` under app/ exports
 * `nextRoute(...)` of one of these (tests/rest-routes.test.ts proves it both ways); a new domain adds its
 * list and its tag here.
 */
<<<<<<< HEAD
export const restRoutes: AnyRouteDefinition[] = [...examRoutes, ...graphRoutes, ...classroomRoutes, ...peopleRoutes];

export const restTags = [examTag, graphTag, classroomTag, peopleTag];
=======
export const restRoutes: AnyRouteDefinition[] = [...examRoutes, ...graphRoutes, ...classroomRoutes, ...rosterImportRoutes];

export const restTags = [examTag, graphTag, classroomTag, schoolTag];
>>>>>>> h17-import
