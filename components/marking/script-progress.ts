/*
 * How far the script on a marking screen has got, from its marks as the screen holds them (live, while
 * the queue is read once): each question's state in the question strip, and the script's status as the
 * server's rule words it (complete when every question has a confirmed mark).
 */
import type { StripState } from "./QuestionStrip";

/** A mark recorded on the script (the server's reply), as far as progress reads it. */
interface RecordedMark {
  confirmed: boolean;
  awarded_marks: number | null;
}

/** Confirmed with a mark: a question left empty is never done, confirmed or not. */
const isDone = (mark: RecordedMark | undefined): boolean => Boolean(mark?.confirmed && mark.awarded_marks !== null);

/** A question's state in the strip: a draft not saved yet, done, begun (a mark or comment recorded), or to do. */
export function questionProgress(recorded: RecordedMark | undefined, unsaved: boolean): StripState {
  return unsaved ? "draft" : isDone(recorded) ? "done" : recorded ? "partial" : "todo";
}

/**
 * The script's status following its marks on screen: complete when every question marked here is
 * done, marking once any mark is recorded, else what the queue said.
 */
export function liveScriptStatus<S extends string>(questionIds: readonly string[], marks: ReadonlyMap<string, RecordedMark>, queued: S): S | "complete" | "marking" {
  const done = questionIds.filter((id) => isDone(marks.get(id))).length;
  return questionIds.length > 0 && done === questionIds.length ? "complete" : marks.size > 0 ? "marking" : queued;
}
