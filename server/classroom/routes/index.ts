import { canvasRoutes } from "./canvas";
import { classRoutes } from "./classes";

export { bootstrapProfileRoute } from "./classes";

/**
 * The classroom REST routes still written by hand, in the order the OpenAPI document lists them; server/rest-routes.ts
 * puts the profile (bootstrapProfileRoute) and then the timetables' operations before them.
 */
export const classroomRoutes = [...classRoutes, ...canvasRoutes];

export const classroomTag = { name: "classroom", description: "Profile bootstrap, timetables, classes, canvas snapshots and sync tokens" };
