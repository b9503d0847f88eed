import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  batchMarkersInput,
  inviteMarker,
  inviteMarkerInput,
  listMarkers,
  markerInput,
  markerProgress,
  markersOutput,
  myWork,
  myWorkOutput,
  progressOutput,
  removeMarker,
  setAllocations,
  setAllocationsInput,
} from "./shared-marking";

/**
 * Shared marking's markers (`exam.markers.<name>`; server/exam/shared-marking.ts): a batch's markers,
 * their allocations, each marker's queue and everyone's progress. The batch is looked for before the
 * role is asked: another school's batch is not found, by anyone.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the batch's owner";
const archived = "The batch is archived or signed off";
const markerPath = "/api/exam/batches/{batch_id}/markers/{user_id}";
const theMarkersUserId = { user_id: "The marker's user id" };

export const markerOperations = {
  /** The batch's markers and their allocations (the owner also gets the staff they may invite). */
  list: defineOperation({
    kind: "query",
    input: batchMarkersInput,
    output: markersOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => listMarkers(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/markers",
      operationId: "listBatchMarkers",
      tags,
      summary: "The batch's markers and their allocations (the owner also gets the staff they may invite)",
      reply: "Markers",
      errors: { 404: notVisible },
    },
  }),

  invite: defineOperation({
    kind: "mutation",
    input: inviteMarkerInput,
    output: markersOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => inviteMarker(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/markers",
      operationId: "inviteBatchMarker",
      tags,
      summary: "Invite active staff of the batch's school to mark it (the owner; idempotent)",
      bodyMember: "body",
      reply: "Markers after the invitation",
      errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: archived },
    },
  }),

  remove: defineOperation({
    kind: "mutation",
    input: markerInput,
    output: markersOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => removeMarker(tx, caller.id, input),
    rest: {
      method: "DELETE",
      path: markerPath,
      operationId: "removeBatchMarker",
      tags,
      summary: "Remove a marker with their allocations and claims; their marks stay (the owner)",
      pathDescriptions: theMarkersUserId,
      reply: "Markers after the removal",
      errors: { 403: notOwner, 404: notVisible, 409: archived },
    },
  }),

  setAllocations: defineOperation({
    kind: "mutation",
    input: setAllocationsInput,
    output: markersOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => setAllocations(tx, caller.id, input),
    rest: {
      method: "PUT",
      path: `${markerPath}/allocations`,
      operationId: "setMarkerAllocations",
      tags,
      summary: "Replace a marker's allocations: questions, ranges of script numbers, or a question within a range (the owner)",
      pathDescriptions: theMarkersUserId,
      bodyMember: "body",
      reply: "Markers with the new allocations",
      errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: archived },
    },
  }),

  myWork: defineOperation({
    kind: "query",
    input: batchMarkersInput,
    output: myWorkOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => myWork(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/my-work",
      operationId: "myMarkingQueue",
      tags,
      summary: "The caller's queue: the scripts and questions of the batch that are theirs to mark",
      reply: "The caller's part and queue",
      errors: { 404: notVisible },
    },
  }),

  progress: defineOperation({
    kind: "query",
    input: batchMarkersInput,
    output: progressOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => markerProgress(tx, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/marker-progress",
      operationId: "markerProgress",
      tags,
      summary: "Progress per marker: their allocation, how much of it has confirmed marks, marks written and claims held",
      reply: "Progress per marker",
      errors: { 404: notVisible },
    },
  }),
};
