import { operationCatalogue } from "./operation-catalogue";
import {
  bootstrapProfileRoute,
  canvasRoutes,
  classroomTag,
  listClassStudentsRoute,
  listSchoolClassesRoute,
  listSchoolStudentsRoute,
} from "./classroom/routes";
import { examRoutes, examTag } from "./exam/routes";
import { graphTag } from "./graph/graph-tag";
import { graphChildrenRoute } from "./classroom/routes/graph-children";
import type { AnyRouteDefinition } from "./http/route";
import { schoolRoutes, schoolTag } from "./identity/routes";
import { restRouteOf, restRoutesOf } from "./operations/rest";

/**
 * Every REST route of Markbook, as the OpenAPI document lists them. Each `route.ts` under app/ exports
 * `nextRoute(...)` of one of these (tests/rest-routes.test.ts proves it both ways); a new domain adds its
 * list and its tag here. The people routes are derived from the operation catalogue (server/operation-catalogue.ts),
 * in the place they always held, so the document keeps its order.
 */
const classes = operationCatalogue.classes;

export const restRoutes: AnyRouteDefinition[] = [
  ...restRoutesOf(operationCatalogue.exam.templates),
  ...restRoutesOf(operationCatalogue.exam.questions),
  ...restRoutesOf(operationCatalogue.exam.rubric),
  ...restRoutesOf(operationCatalogue.exam.comments),
  ...examRoutes,
  ...restRoutesOf(operationCatalogue.exam.files),
  restRouteOf(operationCatalogue.exam.intake.printScripts),
  ...restRoutesOf(operationCatalogue.exam.reviews),
  ...restRoutesOf(operationCatalogue.student.reviews),
  ...restRoutesOf(operationCatalogue.student.scripts),
  ...restRoutesOf(operationCatalogue.exam.annotations),
  ...restRoutesOf(operationCatalogue.exam.answers),
  ...restRoutesOf(operationCatalogue.exam.returns),
  ...restRoutesOf(operationCatalogue.graph),
  graphChildrenRoute,
  bootstrapProfileRoute,
  ...restRoutesOf(operationCatalogue.timetables),
  // The classes' routes in the document's order: the lists answered through the reply cache are hand-written, between the operations' faces.
  listSchoolClassesRoute,
  restRouteOf(classes.teaching),
  restRouteOf(classes.enrolled),
  listSchoolStudentsRoute,
  listClassStudentsRoute,
  restRouteOf(classes.addStudentToClass),
  restRouteOf(classes.setClassTeachers),
  ...canvasRoutes,
  ...restRoutesOf(operationCatalogue.people),
  ...schoolRoutes,
];

export const restTags = [examTag, graphTag, classroomTag, schoolTag];
