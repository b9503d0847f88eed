import { asUser } from "../../db/rls";
import { defineRoute, errorMeaning, jsonBody, jsonReply, recordPath } from "../../http/route";
import { recordId } from "../../http/record-id";
import {
  claim,
  claimBody,
  claimReply,
  inviteMarker,
  inviteMarkerBody,
  listMarkers,
  markerProgress,
  markersOutput,
  myWork,
  myWorkOutput,
  progressOutput,
  releaseBody,
  releaseClaim,
  removeMarker,
  setAllocations,
  setAllocationsBody,
} from "../shared-marking";
import { z } from "zod";

/** Shared marking: a batch's markers, their allocations, their queues and their claims. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the batch's owner";
const archived = "The batch is archived or signed off";
const batchPath = recordPath("batch_id", "Batch");
const markerPath = batchPath.extend({ user_id: recordId("Marker").describe("The marker's user id") });

export const listMarkersRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/markers",
  operationId: "listBatchMarkers",
  tags,
  summary: "The batch's markers and their allocations (the owner also gets the staff they may invite)",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(markersOutput, "Markers") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => listMarkers(tx, user.id, params)),
});

export const inviteMarkerRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/markers",
  operationId: "inviteBatchMarker",
  tags,
  summary: "Invite active staff of the batch's school to mark it (the owner; idempotent)",
  auth: "bearer",
  params: batchPath,
  body: jsonBody(inviteMarkerBody),
  replies: { 200: jsonReply(markersOutput, "Markers after the invitation") },
  errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: archived },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => inviteMarker(tx, user.id, { ...params, body })),
});

export const removeMarkerRoute = defineRoute({
  method: "DELETE",
  path: "/api/exam/batches/{batch_id}/markers/{user_id}",
  operationId: "removeBatchMarker",
  tags,
  summary: "Remove a marker with their allocations and claims; their marks stay (the owner)",
  auth: "bearer",
  params: markerPath,
  replies: { 200: jsonReply(markersOutput, "Markers after the removal") },
  errors: { 403: notOwner, 404: notVisible, 409: archived },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => removeMarker(tx, user.id, params)),
});

export const setAllocationsRoute = defineRoute({
  method: "PUT",
  path: "/api/exam/batches/{batch_id}/markers/{user_id}/allocations",
  operationId: "setMarkerAllocations",
  tags,
  summary: "Replace a marker's allocations: questions, ranges of script numbers, or a question within a range (the owner)",
  auth: "bearer",
  params: markerPath,
  body: jsonBody(setAllocationsBody),
  replies: { 200: jsonReply(markersOutput, "Markers with the new allocations") },
  errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: archived },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => setAllocations(tx, user.id, { ...params, body })),
});

export const myWorkRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/my-work",
  operationId: "myMarkingQueue",
  tags,
  summary: "The caller's queue: the scripts and questions of the batch that are theirs to mark",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(myWorkOutput, "The caller's part and queue") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => myWork(tx, user.id, params)),
});

export const claimRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/claims",
  operationId: "claimMarkingPair",
  tags,
  summary: "Claim a (script, question) to mark, or the next one of the caller's allocation; the claim lasts 10 minutes and a save renews it",
  auth: "bearer",
  params: batchPath,
  body: jsonBody(claimBody),
  replies: { 200: jsonReply(claimReply, "The claim, or null when nothing is left") },
  errors: { 400: invalid, 403: "The pair is not in the caller's allocation", 404: notVisible, 409: "Another marker holds the pair, the batch has no markers, or it is archived or signed off" },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => claim(tx, user.id, { ...params, body })),
});

export const releaseClaimRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/claims/release",
  operationId: "releaseMarkingPair",
  tags,
  summary: "Release the caller's claim on a (script, question) (the owner releases anyone's); idempotent",
  auth: "bearer",
  params: batchPath,
  body: jsonBody(releaseBody),
  replies: { 200: jsonReply(z.object({ released: z.boolean() }), "Whether a claim was released") },
  errors: { 400: invalid, 404: notVisible },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => releaseClaim(tx, user.id, { ...params, body })),
});

export const markerProgressRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/marker-progress",
  operationId: "markerProgress",
  tags,
  summary: "Progress per marker: their allocation, how much of it has confirmed marks, marks written and claims held",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(progressOutput, "Progress per marker") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => markerProgress(tx, params)),
});

export const sharedMarkingRoutes = [
  listMarkersRoute,
  inviteMarkerRoute,
  removeMarkerRoute,
  setAllocationsRoute,
  myWorkRoute,
  claimRoute,
  releaseClaimRoute,
  markerProgressRoute,
];
