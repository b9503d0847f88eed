import { z } from "zod";
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
} from "../../identity/people";
import { previewSignInSlips, signInSlipsInput, signInSlipsPreviewOutput } from "../../identity/sign-in-slips";
import { router, userProcedure } from "../init";

const personChanges = personIdInput.extend(editPersonInput.omit({ role: true, active: true }).shape);

/** The people of the caller's school, for its school admins (as REST /api/school/people). */
export const peopleRouter = router({
  list: userProcedure
    .input(listPeopleInput)
    .output(peoplePageOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => listPeople(tx, ctx.user.id, input))),

  get: userProcedure
    .input(personIdInput)
    .output(personOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => getPerson(tx, ctx.user.id, input))),

  add: userProcedure
    .input(addPersonInput)
    .output(personOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => addPerson(tx, ctx.user.id, input))),

  edit: userProcedure
    .input(personChanges)
    .output(personOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => editPerson(tx, ctx.user.id, input))),

  changeRole: userProcedure
    .input(personIdInput.extend({ role: editPersonInput.shape.role.unwrap() }))
    .output(personOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => editPerson(tx, ctx.user.id, input))),

  setActive: userProcedure
    .input(personIdInput.extend({ active: z.boolean("active must be true or false") }))
    .output(personOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => editPerson(tx, ctx.user.id, input))),

  resetPassword: userProcedure
    .input(personIdInput)
    .output(temporaryPasswordOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => resetPassword(tx, ctx.user.id, input))),

  /** How many sign-in slips a choice prints (the PDF itself is REST POST /api/school/sign-in-slips, a download). */
  signInSlipsPreview: userProcedure
    .input(signInSlipsInput)
    .output(signInSlipsPreviewOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => previewSignInSlips(tx, ctx.user.id, input))),
});
