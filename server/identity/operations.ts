import { z } from "zod";
import { chooseOwnPasswordThrottled, choosePasswordInput } from "../auth/password-change";
import { defineOperation } from "../operations/define";
import {
  addPerson,
  addPersonInput,
  editPerson,
  editPersonInput,
  getPerson,
  listPeople,
  listPeopleInput,
  peoplePageOutput,
  personIdInput,
  personOutput,
  resetPassword,
  temporaryPasswordOutput,
} from "./people";
import { bootstrapProfileOutput, myProfileOutput } from "./bootstrap-profile";
import { bootstrapProfileCache } from "./bootstrap-cache";
import {
  createPersonalAccessToken,
  createPersonalAccessTokenInput,
  listPersonalAccessTokens,
  revokePersonalAccessToken,
  revokePersonalAccessTokenInput,
} from "./personal-tokens";
import { schoolTag } from "./school-tag";
import { signInSlipPrinter } from "./slip-printer";
import { MAX_SLIPS, printSignInSlips, previewSignInSlips, signInAddress, signInSlipsInput, signInSlipsPreviewOutput } from "./sign-in-slips";
import { importRosterFiles, importRosterUpload, rosterImportInput, rosterUploadInput } from "./roster-import";
import { rosterImportOutput } from "./roster-plan";
import { getBootstrapProfile, getMyProfile } from "./users";
import { errorMeaning, replyWith, streamedBody } from "../http/route";

/**
 * The people of the caller's school, for its school admins (server/identity/people.ts has the rules):
 * each operation once, its tRPC procedure `people.<name>` and its REST face under /api/school derived
 * from it (server/operation-catalogue.ts). The order is the REST document's.
 */

const tags = [schoolTag.name];
const invalid = "Invalid request (see detail)";
const outsideScope = "Not found, or outside the caller's school";

/** A person's details, changed from the people pages (role and activity have their own procedures). */
const personChanges = personIdInput.extend(editPersonInput.omit({ role: true, active: true }).shape);

export const peopleOperations = {
  list: defineOperation({
    kind: "query",
    input: listPeopleInput,
    output: peoplePageOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => listPeople(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/school/people",
      operationId: "listPeople",
      tags,
      summary: "People of the caller's school by full name, a page at a time, with the total that match",
      reply: "A page of people",
      errors: { 400: invalid },
    },
  }),

  add: defineOperation({
    kind: "mutation",
    input: addPersonInput,
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => addPerson(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/school/people",
      operationId: "addPerson",
      tags,
      summary: "Add a person to the caller's school (without a password until one is reset)",
      status: 201,
      reply: "The person",
      example: '{"full_name": "Ada Lovelace", "email": "ada@school.example", "role": "teacher"}',
      errors: { 400: invalid, 409: "Someone already uses this email address" },
    },
  }),

  get: defineOperation({
    kind: "query",
    input: personIdInput,
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => getPerson(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/school/people/{user_id}",
      operationId: "getPerson",
      tags,
      summary: "One person of the caller's school",
      reply: "The person",
      errors: { 404: outsideScope },
    },
  }),

  /** Details, role and activity at once: REST's PATCH (the people pages change each with its own procedure). */
  editPerson: defineOperation({
    kind: "mutation",
    input: personIdInput.extend(editPersonInput.shape),
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    trpc: false,
    handler: ({ tx, caller, input }) => editPerson(tx, caller.id, input),
    rest: {
      method: "PATCH",
      path: "/api/school/people/{user_id}",
      operationId: "editPerson",
      tags,
      summary: "Change a person's details, role or activity (deactivated: no sign-in, tokens and keys refused at once)",
      description: "An admin cannot remove their own admin role or deactivate themselves; the school always keeps an active admin (409).",
      reply: "The person as changed",
      example: '{"role": "teacher", "active": false}',
      errors: { 400: invalid, 404: outsideScope, 409: "The email is in use, or the school would have no active admin" },
    },
  }),

  resetPassword: defineOperation({
    kind: "mutation",
    input: personIdInput,
    output: temporaryPasswordOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => resetPassword(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/school/people/{user_id}/password",
      operationId: "resetPassword",
      tags,
      summary: "Give a person a temporary password, shown this once; they choose their own at their next sign-in",
      description: "Their sessions begun before the reset are signed out.",
      reply: "The temporary password (never stored, never shown again)",
      errors: { 404: outsideScope },
    },
  }),

  /** The slips as one PDF, a download: REST only (the dialog asks `signInSlipsPreview` first, then posts the form). */
  printSignInSlips: defineOperation({
    kind: "mutation",
    input: signInSlipsInput,
    transaction: "as-user",
    role: "school-admin",
    trpc: false,
    // The PDF is made inside the transaction: one that fails leaves every password as it was.
    handler: ({ tx, caller, input }) => printSignInSlips(tx, caller.id, input, { signInAddress: signInAddress(), print: (sheet) => signInSlipPrinter()(sheet) }),
    rest: {
      method: "POST",
      path: "/api/school/sign-in-slips",
      operationId: "printSignInSlips",
      tags,
      summary:
        "Sign-in slips: a temporary password for each person of a class, a year group or a selection, printed as one PDF to cut and hand out",
      description:
        "Each person chosen who has no password yet (everyone chosen with `reissue`, whose passwords are then replaced) gets a new temporary password, " +
        "shown on their slip only (only its hash is stored); they choose their own at their first sign-in. Slips are sorted by class, then surname, " +
        `ten to an A4 page. Deactivated people and the caller get none; at most ${MAX_SLIPS} slips at once. ` +
        "The reply's `X-Markbook-Slips` says how many slips it holds, `X-Markbook-Skipped` how many people chosen were left out for having a password.",
      file: {
        kind: "file",
        contentType: "application/pdf",
        description: "attachment `sign-in-slips.pdf`",
        schema: { type: "string", contentMediaType: "application/pdf" },
      },
      respond: (printed) =>
        new Response(Buffer.from(printed.pdf), {
          headers: {
            "content-type": "application/pdf",
            "content-disposition": 'attachment; filename="sign-in-slips.pdf"',
            "cache-control": "no-store",
            "x-markbook-slips": String(printed.count),
            "x-markbook-skipped": String(printed.skipped),
          },
        }),
      example: '{"class_id": "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"}',
      errors: {
        400: invalid,
        404: "The class or a person chosen is not found, or is outside the caller's school",
        409: "Nobody chosen needs a slip: everyone has a password (ask again with reissue), or nobody is chosen",
      },
    },
  }),

  edit: defineOperation({
    kind: "mutation",
    input: personChanges,
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => editPerson(tx, caller.id, input),
  }),

  changeRole: defineOperation({
    kind: "mutation",
    input: personIdInput.extend({ role: editPersonInput.shape.role.unwrap() }),
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => editPerson(tx, caller.id, input),
  }),

  setActive: defineOperation({
    kind: "mutation",
    input: personIdInput.extend({ active: z.boolean("active must be true or false") }),
    output: personOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => editPerson(tx, caller.id, input),
  }),

  /** How many sign-in slips a choice prints (the PDF itself is `printSignInSlips`, a REST download). */
  signInSlipsPreview: defineOperation({
    kind: "query",
    input: signInSlipsInput,
    output: signInSlipsPreviewOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => previewSignInSlips(tx, caller.id, input),
  }),
};

const tokenSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  created_at: z.date(),
  expires_at: z.date(),
  revoked_at: z.date().nullable(),
});

/** Personal access tokens of the caller: the token itself is shown once, by `create`. */
export const tokenOperations = {
  list: defineOperation({
    kind: "query",
    output: z.array(tokenSummary),
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listPersonalAccessTokens(tx, caller.id),
  }),

  create: defineOperation({
    kind: "mutation",
    input: createPersonalAccessTokenInput,
    output: z.object({ id: z.uuid(), name: z.string(), expires_at: z.date(), token: z.string() }),
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => createPersonalAccessToken(tx, caller.id, input),
  }),

  revoke: defineOperation({
    kind: "mutation",
    input: revokePersonalAccessTokenInput,
    output: z.object({ id: z.uuid(), revoked_at: z.date() }),
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => revokePersonalAccessToken(tx, caller.id, input),
  }),
};

/** The caller's own profile and password. */
export const meOperations = {
  /** The bootstrap profile (as GET /me/bootstrap) plus the caller's memberships, in one transaction. */
  profile: defineOperation({
    kind: "query",
    output: myProfileOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => getMyProfile(tx, caller.id),
  }),

  /** The contract's bootstrap profile (REST only: the web app asks for `profile`), through the reply cache. */
  bootstrap: defineOperation({
    kind: "query",
    output: bootstrapProfileOutput,
    transaction: "as-user",
    role: "signed-in",
    trpc: false,
    handler: ({ tx, caller }) => getBootstrapProfile(tx, caller.id),
    rest: {
      method: "GET",
      path: "/me/bootstrap",
      operationId: "getBootstrapProfile",
      tags: ["classroom"],
      summary: "The caller's bootstrap profile",
      reply: "OK",
      cache: ({ db, caller }) => bootstrapProfileCache(db, caller.id),
      errors: {},
    },
  }),

  /**
   * The caller chooses their own password (after an admin gave them a temporary one); guesses of the
   * current one are throttled, so the domain function opens its own transactions (a refused guess is
   * counted even though the change is refused).
   */
  choosePassword: defineOperation({
    kind: "mutation",
    input: choosePasswordInput,
    output: z.object({ changed: z.literal(true) }),
    transaction: "database",
    role: "signed-in",
    temporaryPassword: true,
    handler: ({ db, caller, input }) => chooseOwnPasswordThrottled(db, caller.id, input),
  }),
};

/**
 * Roster import for a school's admins over tRPC: preview (the plan) and commit (the plan, written).
 * REST's POST /api/school/roster-imports takes the file itself as a streamed body (`importRoster`, REST only).
 */
export const rosterImportOperations = {
  preview: defineOperation({
    kind: "mutation",
    input: rosterImportInput,
    output: rosterImportOutput,
    // The import opens its own transaction as the caller (the files are read inside it).
    transaction: "database",
    role: "school-admin",
    handler: ({ db, caller, input }) => importRosterFiles(db, caller.id, input, "preview"),
  }),

  // "apply" is a word tRPC reserves (a function's own method), so the writing procedure is "commit".
  commit: defineOperation({
    kind: "mutation",
    input: rosterImportInput,
    output: rosterImportOutput,
    transaction: "database",
    role: "school-admin",
    handler: ({ db, caller, input }) => importRosterFiles(db, caller.id, input, "apply"),
  }),

  /** A tool's import: the file itself is the body, streamed; `dry_run` previews. */
  importRoster: defineOperation({
    kind: "mutation",
    input: rosterUploadInput,
    output: rosterImportOutput,
    transaction: "database",
    role: "school-admin",
    trpc: false,
    handler: ({ db, caller, input, upload }) => importRosterUpload(db, caller.id, input, upload),
    rest: {
      method: "POST",
      path: "/api/school/roster-imports",
      operationId: "importRoster",
      tags,
      summary: "Import people, classes and enrollments from a CSV or a OneRoster 1.1 zip (school admins)",
      description:
        "The body is the file itself: a school export's CSV (comma, semicolon or tab; UTF-8, UTF-16 or Windows-1252) with its column mapping " +
        "in `mapping`, or a OneRoster 1.1 CSV bundle as a zip (users.csv, classes.csv, enrollments.csv). With dry_run=true the reply is " +
        "the plan and nothing is written; otherwise the same plan is written in one transaction (201). People are matched within the " +
        "school by SIS id, else email, else username; classes by SIS id, else name. An import adds and updates; it never deletes, " +
        "deactivates or sets a password. A CSV whose mapping cannot work answers the plan with `mappingProblems` (dry run) or 400.",
      streamedBody: streamedBody("text/csv", { type: "string", description: "The CSV file, or (Content-Type: application/zip) the OneRoster bundle" }),
      replies: {
        200: "The plan (dry_run=true): who would be created, updated, unchanged or skipped, and why",
        201: "The import, written: the same plan with applied true",
      },
      // A preview is never applied; an import that wrote is.
      respond: (result) => replyWith(result.applied ? 201 : 200, result),
      errors: {
        400: errorMeaning.invalid,
        403: "Not a school admin of the caller's school",
        409: "The school's people changed while the import ran: preview again",
        413: "Larger than the import limit (ROSTER_IMPORT_MAX_BYTES, ROSTER_IMPORT_MAX_ROWS)",
        415: "Neither a CSV nor a zip",
      },
    },
  }),
};
