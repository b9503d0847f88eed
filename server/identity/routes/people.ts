import { asUser } from "../../db/rls";
import { defineRoute, jsonBody, jsonReply, recordPath, replyWith } from "../../http/route";
import {
  addPerson,
  addPersonInput,
  editPerson,
  editPersonInput,
  getPerson,
  listPeople,
  listPeopleInput,
  peoplePageOutput,
  personOutput,
  resetPassword,
  temporaryPasswordOutput,
} from "../people";
import { schoolTag } from "./school-tag";

/** People of the caller's school, for its school admins (server/identity/people.ts has the rules). */

const tags = [schoolTag.name];
const invalid = "Invalid request (see detail)";
const onlyAdmins = "The caller is not a school admin of their school";
const outsideScope = "Not found, or outside the caller's school";
const userIdPath = recordPath("user_id", "Person");

export const listPeopleRoute = defineRoute({
  method: "GET",
  path: "/api/school/people",
  operationId: "listPeople",
  tags,
  summary: "People of the caller's school by full name, a page at a time, with the total that match",
  auth: "bearer",
  query: listPeopleInput,
  replies: { 200: jsonReply(peoplePageOutput, "A page of people") },
  errors: { 400: invalid, 403: onlyAdmins },
  handler: ({ db, user, query }) => asUser(db, user.id, (tx) => listPeople(tx, user.id, query)),
});

export const addPersonRoute = defineRoute({
  method: "POST",
  path: "/api/school/people",
  operationId: "addPerson",
  tags,
  summary: "Add a person to the caller's school (without a password until one is reset)",
  auth: "bearer",
  body: jsonBody(addPersonInput, { example: '{"full_name": "Ada Lovelace", "email": "ada@school.example", "role": "teacher"}' }),
  replies: { 201: jsonReply(personOutput, "The person") },
  errors: { 400: invalid, 403: onlyAdmins, 409: "Someone already uses this email address" },
  handler: async ({ db, user, body }) => replyWith(201, await asUser(db, user.id, (tx) => addPerson(tx, user.id, body))),
});

export const getPersonRoute = defineRoute({
  method: "GET",
  path: "/api/school/people/{user_id}",
  operationId: "getPerson",
  tags,
  summary: "One person of the caller's school",
  auth: "bearer",
  params: userIdPath,
  replies: { 200: jsonReply(personOutput, "The person") },
  errors: { 403: onlyAdmins, 404: outsideScope },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getPerson(tx, user.id, { user_id: params.user_id })),
});

export const editPersonRoute = defineRoute({
  method: "PATCH",
  path: "/api/school/people/{user_id}",
  operationId: "editPerson",
  tags,
  summary: "Change a person's details, role or activity (deactivated: no sign-in, tokens and keys refused at once)",
  description: "An admin cannot remove their own admin role or deactivate themselves; the school always keeps an active admin (409).",
  auth: "bearer",
  params: userIdPath,
  body: jsonBody(editPersonInput, { example: '{"role": "teacher", "active": false}' }),
  replies: { 200: jsonReply(personOutput, "The person as changed") },
  errors: { 400: invalid, 403: onlyAdmins, 404: outsideScope, 409: "The email is in use, or the school would have no active admin" },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => editPerson(tx, user.id, { ...body, user_id: params.user_id })),
});

export const resetPasswordRoute = defineRoute({
  method: "POST",
  path: "/api/school/people/{user_id}/password",
  operationId: "resetPassword",
  tags,
  summary: "Give a person a temporary password, shown this once; they choose their own at their next sign-in",
  description: "Their sessions begun before the reset are signed out.",
  auth: "bearer",
  params: userIdPath,
  replies: { 200: jsonReply(temporaryPasswordOutput, "The temporary password (never stored, never shown again)") },
  errors: { 403: onlyAdmins, 404: outsideScope },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => resetPassword(tx, user.id, { user_id: params.user_id })),
});

export const peopleRoutes = [listPeopleRoute, addPersonRoute, getPersonRoute, editPersonRoute, resetPasswordRoute];
