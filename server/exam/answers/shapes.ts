import { z } from "zod";
import { TICK_BOX_LABELS } from "../../../lib/rules/tick-boxes";
import { recordId } from "../../http/record-id";
import { markProvenance } from "../mark-provenance";

/**
 * Answers read from the scan (issue 36): what the exam.answers operations take and give. The reading of
 * each response area of a filed page (tick boxes: the labels ticked, or undecided; a written area: blank,
 * written or uncertain), grouped by question for the answers screen and the check screen, and the
 * marker's decisions on them. Readings never carry a name: scripts are named as the batch's names rule
 * says (anonymity.ts), and crops are images of an area, painted over where the page's covers lie.
 */

/** Who gave a mark: a teacher (any person, through any edge), the tick reader, or the blank rule (defined beside the marks, which say it too). */
export { markProvenance };

const boxLabel = z.enum(TICK_BOX_LABELS as [string, ...string[]]);

/** A rectangle of the upright scanned page, in fractions of it (origin top left): where a crop is cut. */
const pageRect = z.object({ page: z.number().int().min(1), x: z.number(), y: z.number(), width: z.number(), height: z.number() });

/** One script's reading of one question, as the answers screen lists it. */
export const scriptAnswer = z.object({
  submission_id: z.uuid(),
  /** The student's name, or "Script 17" where names are hidden (anonymous batch, or no student yet). */
  script_label: z.string(),
  /** The tick-box area read (a question with several areas lists the first; crops cover each). */
  response_area_id: z.uuid(),
  /** Labels ticked as read (tick question), null when undecided; for a written question, null. */
  read_answer: z.array(z.string()).nullable(),
  /** A written question: blank / written / uncertain; a tick question: null. */
  blank: z.enum(["blank", "written", "uncertain"]).nullable(),
  /** Where the area lies on the scan, for its crop (GET the crop operation for its pixels). */
  crop: pageRect,
  /** The mark now recorded for the question, if any, and who gave it. */
  awarded_marks: z.number().nullable(),
  marked_by: markProvenance.nullable(),
  /** The answer a teacher confirmed or corrected (tick question), when they did. */
  teacher_answer: z.array(z.string()).nullable(),
});

/**
 * A group of identical answers to one question: "14 scripts: B", "3 scripts: B and C", the undecided
 * ones (key "undecided", answer null: the check screen's), the blanks (key "blank").
 */
export const answerGroup = z.object({
  /** "A", "B+C", "none" (no box ticked), "undecided", "blank", "written" (a written question's read areas). */
  key: z.string(),
  answer: z.array(z.string()).nullable(),
  /** The marks this answer earns by the scheme (tick question, decided answers); null otherwise. */
  marks: z.number().nullable(),
  scripts: z.array(scriptAnswer),
});

export const questionAnswers = z.object({
  question_id: z.uuid(),
  label: z.string(),
  max_marks: z.number(),
  kind: z.enum(["ticks", "written"]),
  /** A tick question's box labels, in print order, and the right ones by its scheme. */
  box_labels: z.array(z.string()),
  correct: z.array(z.string()),
  allow_multiple: z.boolean(),
  groups: z.array(answerGroup),
});

export const batchAnswersInput = z.object({ batch_id: recordId("Batch") });
export const batchAnswersOutput = z.object({
  /** Scripts with pages filed whose areas are still being read (the screen says "reading N scripts…"). */
  reading: z.number().int(),
  /** The batch gives confident blanks 0 automatically. */
  auto_zero_blanks: z.boolean(),
  questions: z.array(questionAnswers),
});

export const submissionAnswersInput = z.object({ submission_id: recordId("Submission") });
/** The marking screen's view of one script: per question read, its reading (same shape, one script). */
export const submissionAnswersOutput = z.object({
  answers: z.array(scriptAnswer.extend({ question_id: z.uuid() })),
});

/**
 * A marker decides a tick question's answer for some scripts at once (a whole group, or one script):
 * each gets the scheme's marks for that answer as a teacher's mark. All or nothing.
 */
export const setAnswerInput = z.object({
  batch_id: recordId("Batch"),
  question_id: recordId("Question"),
  submission_ids: z.array(z.uuid()).min(1).max(2000),
  /** The labels ticked ([] for none). */
  answer: z.array(boxLabel).max(26),
});
export const setAnswerOutput = z.object({ marked: z.number().int() });

/** Every script whose areas for the question read blank (confidently) and that has no mark gets 0, as a teacher's mark. */
export const zeroBlanksInput = z.object({ batch_id: recordId("Batch"), question_id: recordId("Question") });
export const zeroBlanksOutput = z.object({ marked: z.number().int() });

/** Undo an automatic mark (ticks or blank) of one script's question: the mark is removed and not written again by a re-read. */
export const undoAutomaticMarkInput = z.object({ submission_id: recordId("Submission"), question_id: recordId("Question") });
export const undoAutomaticMarkOutput = z.object({ removed: z.boolean() });

export const setAutoZeroBlanksInput = z.object({ batch_id: recordId("Batch"), auto_zero_blanks: z.boolean() });

/** The crop of one script's response area, as a PNG (a file reply). */
export const answerCropInput = z.object({ submission_id: recordId("Submission"), response_area_id: recordId("Response area") });
