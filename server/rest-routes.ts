import { operationCatalogue } from "./operation-catalogue";
import { classroomTag } from "./classroom/classroom-tag";
import { examRoutes, examTag } from "./exam/routes";
import { graphTag } from "./graph/graph-tag";
import type { AnyRouteDefinition } from "./http/route";
import { schoolTag } from "./identity/school-tag";
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
  restRouteOf(operationCatalogue.me.bootstrap),
  ...restRoutesOf(operationCatalogue.timetables),
  // The classes' faces in the document's order, which is not the domain's.
  restRouteOf(classes.list),
  restRouteOf(classes.teaching),
  restRouteOf(classes.enrolled),
  restRouteOf(classes.schoolStudents),
  restRouteOf(classes.listClassStudents),
  restRouteOf(classes.addStudentToClass),
  restRouteOf(classes.setClassTeachers),
  ...restRoutesOf(operationCatalogue.snapshots),
  ...restRoutesOf(operationCatalogue.people),
  ...restRoutesOf(operationCatalogue.rosterImport),
];

export const restTags = [examTag, graphTag, classroomTag, schoolTag];
