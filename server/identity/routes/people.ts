import { asUser } from "../../db/rls";
import { AppError } from "../../errors";
import { defineRoute, fileReply, jsonBody, jsonReply, recordPath, replyWith } from "../../http/route";
import { intakeImaging } from "../../exam/intake/imaging-port";
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
import { MAX_SLIPS, issueSignInSlips, nobodyToPrint, signInAddress, signInSlipsInput } from "../sign-in-slips";
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


export const signInSlipsRoute = defineRoute({
  method: "POST",
  path: "/api/school/sign-in-slips",
  operationId: "printSignInSlips",
  tags,
  summary: "Sign-in slips: a temporary password for each person of a class, a year group or a selection, printed as one PDF to cut and hand out",
  description:
    "Each person chosen who has no password yet (everyone chosen with `reissue`, whose passwords are then replaced) gets a new temporary password, " +
    "shown on their slip only (only its hash is stored); they choose their own at their first sign-in. Slips are sorted by class, then surname, " +
    `ten to an A4 page. Deactivated people and the caller get none; at most ${MAX_SLIPS} slips at once. ` +
    "The reply's `X-Markbook-Slips` says how many slips it holds, `X-Markbook-Skipped` how many people chosen were left out for having a password.",
  auth: "bearer",
  body: jsonBody(signInSlipsInput, { example: '{"class_id": "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"}' }),
  replies: { 200: fileReply("application/pdf", "attachment `sign-in-slips.pdf`", { type: "string", contentMediaType: "application/pdf" }) },
  errors: {
    400: invalid,
    403: onlyAdmins,
    404: "The class or a person chosen is not found, or is outside the caller's school",
    409: "Nobody chosen needs a slip: everyone has a password (ask again with reissue), or nobody is chosen",
  },
  handler: async ({ db, user, body }) => {
    const issued = await asUser(db, user.id, async (tx) => {
      const slips = await issueSignInSlips(tx, user.id, body, signInAddress());
      if (slips.slips.length === 0) throw new AppError("conflict", nobodyToPrint(slips.skipped_with_password));
      // Made inside the transaction: a PDF that fails leaves every password as it was.
      return { pdf: await intakeImaging().signInSlips(slips), count: slips.slips.length, skipped: slips.skipped_with_password };
    });
    return new Response(Buffer.from(issued.pdf), {
      headers: {
        "content-type": "application/pdf",
        "content-disposition": 'attachment; filename="sign-in-slips.pdf"',
        "cache-control": "no-store",
        "x-markbook-slips": String(issued.count),
        "x-markbook-skipped": String(issued.skipped),
      },
    });
  },
});

export const peopleRoutes = [listPeopleRoute, addPersonRoute, getPersonRoute, editPersonRoute, resetPasswordRoute, signInSlipsRoute];
