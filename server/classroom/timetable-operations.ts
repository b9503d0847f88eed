import { z } from "zod";
import { defineOperation } from "../operations/define";
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
  listMyLessons,
  listTimetables,
  listTimetablesInput,
  listTimetablesOutput,
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
} from "./timetables";

/**
 * Timetables of the caller's school (`timetables.<name>` over tRPC): the list is also
 * GET /database/timetable/timetables; the writes are the admin UI's. Writing needs a school admin or a
 * department head (declared `timetable-manager`; the domain functions and row-level security decide):
 * another school's timetable is not found by anyone, before any role is asked.
 */

const deletedOutput = z.object({ id: z.uuid(), deleted: z.literal(true) });

export const timetableOperations = {
  list: defineOperation({
    kind: "query",
    input: listTimetablesInput,
    output: listTimetablesOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => listTimetables(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/database/timetable/timetables",
      operationId: "listTimetables",
      tags: ["classroom"],
      summary: "Timetables of the caller's school, newest first",
      description: "Empty when the caller has no school or is not a school_admin or department_head of it.",
      reply: "OK",
      errors: { 400: "Invalid request (see detail)" },
    },
  }),

  /** The caller's own lessons in their school's active timetables (read-only; teachers and students). */
  mine: defineOperation({
    kind: "query",
    output: myLessonsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listMyLessons(tx, caller.id),
  }),

  get: defineOperation({
    kind: "query",
    input: timetableIdInput,
    output: timetableWithEntriesOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => getTimetable(tx, input),
  }),

  create: defineOperation({
    kind: "mutation",
    input: createTimetableInput,
    output: timetableOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => createTimetable(tx, caller.id, input),
  }),

  update: defineOperation({
    kind: "mutation",
    input: updateTimetableInput,
    output: timetableOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => updateTimetable(tx, caller.id, input),
  }),

  activate: defineOperation({
    kind: "mutation",
    input: timetableIdInput,
    output: timetableOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => activateTimetable(tx, caller.id, input),
  }),

  deactivate: defineOperation({
    kind: "mutation",
    input: timetableIdInput,
    output: timetableOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => deactivateTimetable(tx, caller.id, input),
  }),

  delete: defineOperation({
    kind: "mutation",
    input: timetableIdInput,
    output: deletedOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => deleteTimetable(tx, caller.id, input),
  }),

  createEntry: defineOperation({
    kind: "mutation",
    input: createTimetableEntryInput,
    output: timetableEntryOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => createTimetableEntry(tx, caller.id, input),
  }),

  updateEntry: defineOperation({
    kind: "mutation",
    input: updateTimetableEntryInput,
    output: timetableEntryOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => updateTimetableEntry(tx, caller.id, input),
  }),

  deleteEntry: defineOperation({
    kind: "mutation",
    input: timetableEntryIdInput,
    output: deletedOutput,
    transaction: "as-user",
    role: "timetable-manager",
    handler: ({ tx, caller, input }) => deleteTimetableEntry(tx, caller.id, input),
  }),
};
