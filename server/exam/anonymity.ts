import { AppError } from "../errors";

/**
 * Anonymous marking (issue 19): in a batch with `anonymous` on, every read of the batch's submissions
 * names a script by its number ("Script 17", exam_submissions.script_number), never by the student's
 * name or id, whoever reads it, the owner included. Only the owner, on asking (`reveal_names`), gets the
 * names back, in the results and the CSV. The redaction is done here, on the server, so no name reaches
 * a browser; the screens only choose the words. See docs/decisions.md, "Marking quality".
 */

/** "Script 17": how a script is named where its student's name is hidden. */
export function scriptLabel(scriptNumber: number): string {
  return `Script ${scriptNumber}`;
}

interface NamedRow {
  student_id: string | null;
  student_name: string | null;
}

/**
 * A submission as its readers get it: `has_student` says whether a student is named on it (a script
 * still to identify has none, which the screens must tell apart), and where names are hidden the
 * student's name and id are null.
 */
export function presentSubmission<T extends NamedRow>(row: T, names: NamesShown): T & { has_student: boolean } {
  const has_student = row.student_id !== null;
  return names === "shown" ? { ...row, has_student } : { ...row, student_id: null, student_name: null, has_student };
}

export type NamesShown = "shown" | "hidden";

/** Names of an ordinary batch are shown; an anonymous batch's are hidden. */
export function batchNames(batch: { anonymous: boolean }): NamesShown {
  return batch.anonymous ? "hidden" : "shown";
}

/**
 * Names for a read that may ask to reveal them (results, CSV): an anonymous batch shows them only to its
 * owner, and only on asking; anyone else who asks is refused (403), never answered with the names. An
 * ordinary batch shows them to every reader, asked or not.
 */
export function namesForReader(batch: { anonymous: boolean; teacher_id: string }, callerId: string, reveal: boolean): NamesShown {
  if (!batch.anonymous) return "shown";
  if (!reveal) return "hidden";
  if (batch.teacher_id !== callerId) throw new AppError("forbidden", "Only the batch's owner can reveal the names of an anonymous batch");
  return "shown";
}

/** Who a submission is, in a message to anyone who may read the batch: the student's name, or the script's number where names are hidden. */
export function submissionInMessage(submission: NamedRow & { script_number: number }, names: NamesShown, unnamed: string): string {
  if (names === "hidden") return scriptLabel(submission.script_number);
  return submission.student_name ?? unnamed;
}
