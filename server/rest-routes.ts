import { classroomRoutes, classroomTag } from "./classroom/routes";
import { examRoutes, examTag } from "./exam/routes";
import { graphSyncRoute } from "./exam/routes/graph-sync";
import { graphTag } from "./graph/graph-tag";
import { graphChildrenRoute } from "./classroom/routes/graph-children";
import type { AnyRouteDefinition } from "./http/route";
import { schoolRoutes, schoolTag } from "./identity/routes";
import { printRoutes } from "./exam/intake/routes/print";

/**
 * Every REST route of Markbook, as the OpenAPI document lists them. Each `route.ts` under app/ exports
 * `nextRoute(...)` of one of these (tests/rest-routes.test.ts proves it both ways); a new domain adds its
 * list and its tag here.
 */
export const restRoutes: AnyRouteDefinition[] = [...examRoutes, ...printRoutes, graphSyncRoute, graphChildrenRoute, ...classroomRoutes, ...schoolRoutes];

export const restTags = [examTag, graphTag, classroomTag, schoolTag];
