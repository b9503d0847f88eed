/** The OpenAPI tag of the classroom routes. */
export const classroomTag = { name: "classroom", description: "Profile bootstrap, timetables, classes, canvas snapshots and sync tokens" };
