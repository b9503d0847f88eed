import { canvasRoutes } from "./canvas";
import { classRoutes } from "./classes";

/** The classroom REST routes, in the order the OpenAPI document lists them. */
export const classroomRoutes = [...classRoutes, ...canvasRoutes];

export const classroomTag = { name: "classroom", description: "Profile bootstrap, timetables, classes, canvas snapshots and sync tokens" };
