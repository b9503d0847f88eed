import { z } from "zod";
import { absenceOutput, setAbsence, setAbsenceInput } from "../../exam/absence";
import { assignScan, assignScanInput, assignScanOutput } from "../../exam/assign-scan";
import {
  archiveBatch,
  batchIdInput,
  batchListOutput,
  batchOutput,
  createBatch,
  createBatchInput,
  createdBatchOutput,
  getQueue,
  getResults,
  listBatches,
  listBatchesInput,
  queueOutput,
  resultsInput,
  resultsOutput,
  setAnonymousInput,
  setBatchAnonymous,
} from "../../exam/batches";
import { batchOverviewOutput, listBatchOverview } from "../../exam/batch-overview";
import { catalogueListOutput, listCataloguePapers } from "../../exam/catalogue";
import { saveMark } from "../../exam/mark-writer";
import { markOutput, upsertMarkInput } from "../../exam/marks";
import {
  listQuestionComments,
  questionCommentsInput,
  questionCommentsOutput,
  removeComment,
  removeCommentInput,
  saveComment,
  saveCommentInput,
  savedCommentOutput,
} from "../../exam/comment-bank";
import {
  createRubricItem,
  createRubricItemInput,
  deleteRubricItem,
  editRubricItem,
  editRubricItemInput,
  listRubricEdits,
  questionIdInput,
  rubricChangeOutput,
  rubricDeleteOutput,
  rubricHistoryOutput,
  rubricItemIdInput,
  rubricItemOutput,
} from "../../exam/rubrics";
import { listSubmissionMarks, submissionMarksInput, submissionMarksOutput } from "../../exam/submission-marks";
import {
  archiveTemplate,
  createTemplate,
  createTemplateInput,
  editMarkScheme,
  editMarkSchemeInput,
  getTemplate,
  listTemplates,
  listTemplatesInput,
  questionOutput,
  saveTemplate,
  saveTemplateInput,
  templateIdInput,
  templateListOutput,
  templateOutput,
  templateWithCanvasOutput,
} from "../../exam/templates";
import { getTemplateGraphStatus, retryTemplateGraphProjection, templateGraphStatusOutput } from "../../graph/projection-status";
import { movePage, movePageInput, movePageOutput } from "../../exam/intake/move-page";
import { printProcedures } from "./intake-print";
import { intakeStatus, intakeStatusOutput, listScanPages, scanPageListOutput } from "../../exam/intake/status";
import { router, userProcedure } from "../init";

/**
 * The exam-marking API for the web app: the same domain functions and schemas as the REST paths under
 * /api/exam. Scan upload is REST only (multipart): the UI posts the form to
 * /api/exam/batches/{id}/scans with its session cookie. These are the sub-routers still written by hand;
 * server/trpc/root.ts joins them with exam's of the operation catalogue (markers, claims, moderation).
 */
export const examRouters = {
  catalogue: router({
    list: userProcedure
      .output(catalogueListOutput)
      .query(async ({ ctx }) => ({ papers: await ctx.asUser((tx) => listCataloguePapers(tx)) })),
  }),
  templates: router({
    list: userProcedure
      .input(listTemplatesInput.optional())
      .output(templateListOutput)
      .query(async ({ ctx, input }) => ({ templates: await ctx.asUser((tx) => listTemplates(tx, input ?? {})) })),
    get: userProcedure
      .input(templateIdInput)
      .output(templateWithCanvasOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => getTemplate(tx, input.template_id))),
    create: userProcedure
      .input(createTemplateInput)
      .output(templateOutput)
      .mutation(({ ctx, input }) => createTemplate(ctx.db, ctx.user.id, input)),
    save: userProcedure
      .input(saveTemplateInput)
      .output(templateWithCanvasOutput)
      .mutation(({ ctx, input }) => saveTemplate(ctx.db, ctx.user.id, input)),
    archive: userProcedure
      .input(templateIdInput)
      .output(templateOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => archiveTemplate(tx, ctx.user.id, input.template_id))),
    /** The owner's view of the template's graph projection (the background job after a save). */
    graphStatus: userProcedure
      .input(templateIdInput)
      .output(templateGraphStatusOutput)
      .query(({ ctx, input }) => getTemplateGraphStatus(ctx.db, ctx.user.id, input.template_id)),
    retryGraph: userProcedure
      .input(templateIdInput)
      .output(templateGraphStatusOutput)
      .mutation(({ ctx, input }) => retryTemplateGraphProjection(ctx.db, ctx.user.id, input.template_id)),
  }),
  questions: router({
    editMarkScheme: userProcedure
      .input(editMarkSchemeInput)
      .output(questionOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => editMarkScheme(tx, ctx.user.id, input))),
  }),
  /** Rubric items (server/exam/rubrics.ts); a template's items come with exam.templates.get. */
  rubric: router({
    create: userProcedure
      .input(createRubricItemInput)
      .output(rubricItemOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => createRubricItem(tx, ctx.user.id, input))),
    edit: userProcedure
      .input(editRubricItemInput)
      .output(rubricChangeOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => editRubricItem(tx, ctx.user.id, input))),
    delete: userProcedure
      .input(rubricItemIdInput)
      .output(rubricDeleteOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => deleteRubricItem(tx, ctx.user.id, input))),
    history: userProcedure
      .input(questionIdInput)
      .output(rubricHistoryOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listRubricEdits(tx, input))),
  }),
  /** A question's comment bank (server/exam/comment-bank.ts). */
  comments: router({
    forQuestion: userProcedure
      .input(questionCommentsInput)
      .output(questionCommentsOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listQuestionComments(tx, input))),
    save: userProcedure
      .input(saveCommentInput)
      .output(savedCommentOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => saveComment(tx, ctx.user.id, input))),
    remove: userProcedure
      .input(removeCommentInput)
      .output(z.object({ id: z.uuid() }))
      .mutation(({ ctx, input }) => ctx.asUser((tx) => removeComment(tx, ctx.user.id, input))),
  }),
  batches: router({
    list: userProcedure
      .input(listBatchesInput.optional())
      .output(batchListOutput)
      .query(async ({ ctx, input }) => ({ batches: await ctx.asUser((tx) => listBatches(tx, input ?? {})) })),
    /** The batches screen: each batch with its template title, class name and progress counts. */
    overview: userProcedure
      .input(listBatchesInput.optional())
      .output(batchOverviewOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listBatchOverview(tx, input ?? {}))),
    create: userProcedure
      .input(createBatchInput)
      .output(createdBatchOutput)
      .mutation(({ ctx, input }) => createBatch(ctx.db, ctx.user.id, input)),
    archive: userProcedure
      .input(batchIdInput)
      .output(batchOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => archiveBatch(tx, ctx.user.id, input.batch_id))),
    /** Anonymous marking on or off (owner only): PATCH /api/exam/batches/{id} on REST. */
    setAnonymous: userProcedure
      .input(setAnonymousInput)
      .output(batchOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => setBatchAnonymous(tx, ctx.user.id, input))),
    queue: userProcedure
      .input(batchIdInput)
      .output(queueOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => getQueue(tx, input.batch_id))),
    /** reveal_names: the names of an anonymous batch, for its owner (403 for anyone else). */
    results: userProcedure
      .input(resultsInput)
      .output(resultsOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => getResults(tx, ctx.user.id, input))),
  }),
  submissions: router({
    /** An unmatched scan given to a student afterwards (its marks move with it). */
    assign: userProcedure
      .input(assignScanInput)
      .output(assignScanOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => assignScan(tx, ctx.user.id, input))),
    /** "Mark absent" (absent: true) and its "Undo" (absent: false). */
    setAbsence: userProcedure
      .input(setAbsenceInput)
      .output(absenceOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => setAbsence(tx, ctx.user.id, input))),
  }),
  /**
   * Class-set intake. Over REST only: the printed scripts' PDF (POST /api/exam/batches/{id}/printed-scripts)
   * and pile uploads (multipart, POST /api/exam/batches/{id}/piles).
   */
  intake: router({
    ...printProcedures,
    status: userProcedure
      .input(batchIdInput)
      .output(intakeStatusOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => intakeStatus(tx, input.batch_id))),
    pages: userProcedure
      .input(batchIdInput)
      .output(scanPageListOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listScanPages(tx, input.batch_id))),
    movePage: userProcedure
      .input(movePageInput)
      .output(movePageOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => movePage(tx, ctx.user.id, input))),
  }),
  marks: router({
    /** The marking screen: one submission with its recorded mark entries. */
    forSubmission: userProcedure
      .input(submissionMarksInput)
      .output(submissionMarksOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listSubmissionMarks(tx, input))),
    upsert: userProcedure
      .input(upsertMarkInput)
      .output(markOutput)
      .mutation(({ ctx, input }) => saveMark(ctx.db, ctx.user.id, input)),
  }),
};
