import { z } from "zod";
import {
  activateTimetable,
  createTimetable,
  createTimetableEntry,
  createTimetableEntryInput,
  createTimetableInput,
  deactivateTimetable,
  deleteTimetable,
  deleteTimetableEntry,
  getTimetable,
  listTimetables,
  listTimetablesInput,
  listTimetablesOutput,
  listMyLessons,
  myLessonsOutput,
  timetableEntryIdInput,
  timetableEntryOutput,
  timetableIdInput,
  timetableOutput,
  timetableWithEntriesOutput,
  updateTimetable,
  updateTimetableEntry,
  updateTimetableEntryInput,
  updateTimetableInput,
} from "../../classroom/timetables";
import { router, userProcedure } from "../init";

const deletedOutput = z.object({ id: z.uuid(), deleted: z.literal(true) });

/** Timetables of the caller's school: reads as GET /database/timetable/timetables, writes for the admin UI. */
export const timetablesRouter = router({
  list: userProcedure
    .input(listTimetablesInput)
    .output(listTimetablesOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => listTimetables(tx, ctx.user.id, input))),

  /** The caller's own lessons in their school's active timetables (read-only; teachers and students). */
  mine: userProcedure.output(myLessonsOutput).query(({ ctx }) => ctx.asUser((tx) => listMyLessons(tx, ctx.user.id))),

  get: userProcedure
    .input(timetableIdInput)
    .output(timetableWithEntriesOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => getTimetable(tx, input))),

  create: userProcedure
    .input(createTimetableInput)
    .output(timetableOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => createTimetable(tx, ctx.user.id, input))),

  update: userProcedure
    .input(updateTimetableInput)
    .output(timetableOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => updateTimetable(tx, ctx.user.id, input))),

  activate: userProcedure
    .input(timetableIdInput)
    .output(timetableOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => activateTimetable(tx, ctx.user.id, input))),

  deactivate: userProcedure
    .input(timetableIdInput)
    .output(timetableOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => deactivateTimetable(tx, ctx.user.id, input))),

  delete: userProcedure
    .input(timetableIdInput)
    .output(deletedOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => deleteTimetable(tx, ctx.user.id, input))),

  createEntry: userProcedure
    .input(createTimetableEntryInput)
    .output(timetableEntryOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => createTimetableEntry(tx, ctx.user.id, input))),

  updateEntry: userProcedure
    .input(updateTimetableEntryInput)
    .output(timetableEntryOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => updateTimetableEntry(tx, ctx.user.id, input))),

  deleteEntry: userProcedure
    .input(timetableEntryIdInput)
    .output(deletedOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => deleteTimetableEntry(tx, ctx.user.id, input))),
});
