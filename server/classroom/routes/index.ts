/**
 * The classroom REST routes still written by hand: the cached lists and the profile (./classes), the canvas
 * routes (./canvas). server/rest-routes.ts puts them, the timetables' and the classes' operations in the
 * document's order.
 */
export { bootstrapProfileRoute, listClassStudentsRoute, listSchoolClassesRoute, listSchoolStudentsRoute } from "./classes";
export { canvasRoutes } from "./canvas";

export const classroomTag = { name: "classroom", description: "Profile bootstrap, timetables, classes, canvas snapshots and sync tokens" };
