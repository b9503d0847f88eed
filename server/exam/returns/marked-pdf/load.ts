import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { asUser } from "../../../db/rls";
import { examAnnotations, examBatches, examMarkEntries, examQuestions, examResponseAreas, examRubricItems, examSubmissions, examTemplates, institutes } from "../../../db/schema";
import { notFound } from "../../../errors";
import { recordId } from "../../../http/record-id";
import type { ObjectStorage } from "../../../storage/object-storage";
import { scriptLabel } from "../../anonymity";
import { isRubricDetail } from "../../rubrics";
import { openSubmissionScan } from "../../scan-files";
import { scanPageNumbers, scanPageOf } from "../../scan-page-numbers";
import { curriculumPointNames } from "../student-scripts";
import { whatToRevise } from "../what-to-revise";
import type { CoverSheet, MarkedAnnotation, MarkedQuestion, MarkedScriptDocument, RevisePoint } from "./document";

/**
 * A marked script's document (document.ts) for STAFF, read as the caller (row-level security): the
 * submission, its batch and paper, the paper's markable questions in the results' order with their
 * response areas, the script's marks (awarded, comment, the rubric items applied) and its first-marking
 * annotations, and the scan through the storage port as the scan route serves it (an anonymous batch's
 * scan without its name, openSubmissionScan). A submission the caller cannot read, a student (who reads
 * no batch), or a script without a scan: 404 "Submission not found" / "Scan not found".
 *
 * Names: an anonymous batch's script is "Script 17" for every reader; otherwise the student's name
 * (a script still to identify: its number). Pages: response areas are on the paper's pages; each is
 * placed on the scan page that holds that paper page (scan_page_numbers), and left off the scan (kept on
 * the cover) when that page was not scanned. Annotations are on the scan's own pages (where the marker
 * drew them: exam.annotations' `page`), so they stay where they were drawn. What to revise is the caller's to give
 * (the student slice's what-to-revise.ts computes it from the curriculum graph); none by default.
 */

export interface LoadOptions {
  storage?: ObjectStorage;
  revise?: RevisePoint[];
}

const submissionId = recordId("Submission");

export async function loadMarkedScriptForStaff(db: Db, callerId: string, id: string, options: LoadOptions = {}): Promise<MarkedScriptDocument> {
  const { cover, annotations, scanFileId, submissionId: parsedId } = await readForStaff(db, callerId, id, options);
  if (scanFileId === null) throw notFound("Scan");
  const scan = await openSubmissionScan(db, callerId, parsedId, { storage: options.storage });
  const scanBytes = new Uint8Array(await new Response(scan.body).arrayBuffer());
  return { ...cover, scan: scanBytes, annotations };
}

/**
 * A script's cover sheet for STAFF (feedback on paper, item 5), read as loadMarkedScriptForStaff reads
 * it, without the scan: a script not yet scanned has one too (its marks, if any).
 */
export async function loadCoverSheetForStaff(db: Db, callerId: string, id: string, options: Pick<LoadOptions, "revise"> = {}): Promise<CoverSheet> {
  return (await readForStaff(db, callerId, id, options)).cover;
}

async function readForStaff(
  db: Db,
  callerId: string,
  id: string,
  options: Pick<LoadOptions, "revise">,
): Promise<{ cover: CoverSheet; annotations: MarkedScriptDocument["annotations"]; scanFileId: string | null; submissionId: string }> {
  // A malformed id is a submission not found (recordId throws the 404 itself).
  const parsed = { data: submissionId.parse(id) };
  const read = await asUser(db, callerId, async (tx) => {
    // exam_batches is closed to students, so the inner join leaves a student with nothing: staff only.
    const [head] = await tx
      .select({
        submission: examSubmissions,
        batchTitle: examBatches.title,
        anonymous: examBatches.anonymous,
        templateId: examBatches.template_id,
        instituteId: examBatches.institute_id,
        paperTitle: examTemplates.title,
      })
      .from(examSubmissions)
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examSubmissions.id, parsed.data));
    if (!head) return null;
    // Containers too: a part without its own specification point counts toward its question's (what to revise).
    const allQuestions = await tx
      .select({ id: examQuestions.id, label: examQuestions.label, max: examQuestions.max_marks, container: examQuestions.is_container, parent: examQuestions.parent_id, specRef: examQuestions.spec_ref })
      .from(examQuestions)
      .where(eq(examQuestions.template_id, head.templateId))
      .orderBy(asc(examQuestions.order), asc(examQuestions.label), asc(examQuestions.id));
    const questions = allQuestions.filter((question) => !question.container);
    const areas = await tx
      .select()
      .from(examResponseAreas)
      .where(and(eq(examResponseAreas.template_id, head.templateId), eq(examResponseAreas.kind, "response")))
      .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y), asc(examResponseAreas.id));
    const marks = await tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, parsed.data));
    const itemIds = marks.flatMap((mark) => (isRubricDetail(mark.mark_scheme_detail) ? (mark.mark_scheme_detail as { items: string[] }).items : []));
    const items =
      itemIds.length === 0
        ? []
        : await tx.select({ id: examRubricItems.id, text: examRubricItems.text, position: examRubricItems.position }).from(examRubricItems).where(inArray(examRubricItems.id, itemIds));
    // First marking only: a second marker's own layer is never part of the returned script.
    const annotations = await tx
      .select()
      .from(examAnnotations)
      .where(and(eq(examAnnotations.submission_id, parsed.data), eq(examAnnotations.layer, "marking")))
      .orderBy(asc(examAnnotations.created_at), asc(examAnnotations.id));
    const pageNumbers = head.submission.scan_file_id === null ? null : await scanPageNumbers(tx, parsed.data);
    const [school] = head.instituteId ? await tx.select({ curriculum: institutes.curriculum_db_name }).from(institutes).where(eq(institutes.id, head.instituteId)) : [];
    return { head, allQuestions, questions, areas, marks, items, annotations, pageNumbers, curriculum: school?.curriculum ?? null };
  });
  if (!read) throw notFound("Submission");
  const { head, pageNumbers } = read;

  const itemById = new Map(read.items.map((item) => [item.id.toLowerCase(), item]));
  const markByQuestion = new Map(read.marks.map((mark) => [mark.question_id, mark]));
  const onScan = (paperPage: number) => scanPageOf(pageNumbers, paperPage);
  const questions: MarkedQuestion[] = read.questions.map((question) => {
    const mark = markByQuestion.get(question.id);
    const applied = mark && isRubricDetail(mark.mark_scheme_detail) ? (mark.mark_scheme_detail as { items: string[] }).items : [];
    return {
      label: question.label,
      max: question.max === null ? 0 : Number(question.max),
      awarded: mark?.awarded_marks == null ? null : Number(mark.awarded_marks),
      comment: mark?.comment ?? null,
      rubricItems: applied
        .map((itemId) => itemById.get(itemId.toLowerCase()))
        .filter((item) => item !== undefined)
        .sort((a, b) => a.position - b.position)
        .map((item) => item.text),
      responseAreas: read.areas
        .filter((area) => area.question_id === question.id)
        .flatMap((area) => {
          const page = onScan(area.page);
          return page === null ? [] : [{ page, x: area.x, y: area.y, width: area.width, height: area.height }];
        }),
    };
  });

  const byPage = new Map<number, MarkedAnnotation[]>();
  for (const row of read.annotations) {
    const page = row.page;
    const shape = annotationOf(row);
    if (shape === null) continue;
    byPage.set(page, [...(byPage.get(page) ?? []), shape]);
  }

  const submission = head.submission;
  const revise = options.revise ?? (await revisePoints(db, read.allQuestions, read.questions, questions, read.curriculum));
  const cover: CoverSheet = {
    who: head.anonymous || !submission.student_name ? scriptLabel(submission.script_number) : submission.student_name,
    batchTitle: head.batchTitle,
    paperTitle: head.paperTitle,
    questions,
    // As the results table adds them: unmarked counts as 0.
    total: {
      awarded: questions.reduce((sum, question) => sum + (question.awarded ?? 0), 0),
      max: questions.reduce((sum, question) => sum + question.max, 0),
    },
    revise,
  };
  const annotations = [...byPage].sort(([a], [b]) => a - b).map(([page, shapes]) => ({ page, shapes }));
  return { cover, annotations, scanFileId: submission.scan_file_id, submissionId: parsed.data };
}

interface QuestionRow {
  id: string;
  label: string;
  parent: string | null;
  specRef: string | null;
}

/**
 * What to revise, as the student's page ranks it (what-to-revise.ts): a part without its own
 * specification point counts toward its nearest ancestor's; the points are named from the school's
 * curriculum graph (read with the application's handle, after the caller's transaction).
 */
/** `leaves[i]` is the row of `marked[i]`. */
async function revisePoints(db: Db, all: QuestionRow[], leaves: QuestionRow[], marked: MarkedQuestion[], curriculum: string | null): Promise<RevisePoint[]> {
  const byId = new Map(all.map((question) => [question.id, question]));
  const specRefOf = (question: QuestionRow | undefined): string | null => {
    for (let depth = 0; question && depth < 16; question = question.parent ? byId.get(question.parent) : undefined, depth++) {
      const ref = question.specRef?.trim();
      if (ref) return ref;
    }
    return null;
  };
  const ranked = whatToRevise(
    marked.map((question, index) => ({
      label: question.label,
      specRef: specRefOf(leaves[index]),
      maxMarks: question.max,
      awardedMarks: question.awarded,
    })),
  );
  if (ranked.length === 0) return [];
  const names = curriculum ? await curriculumPointNames(db)(curriculum, ranked.map((point) => point.spec_ref)) : new Map<string, string>();
  return ranked.map((point) => ({ name: names.get(point.spec_ref) ?? point.spec_ref, lost: point.marks_lost, available: point.marks_available }));
}

type AnnotationRow = Pick<typeof examAnnotations.$inferSelect, "kind" | "geometry" | "text">;

/** A stored annotation as the renderer draws it; null for a row whose geometry does not fit its kind (drawn nowhere). */
export function annotationOf(row: AnnotationRow): MarkedAnnotation | null {
  const { x, y, width, height, points } = row.geometry;
  const hasPoint = typeof x === "number" && typeof y === "number";
  switch (row.kind) {
    case "tick":
    case "cross":
      return hasPoint ? { kind: row.kind, x, y } : null;
    case "text":
    case "stamp":
      return hasPoint ? { kind: row.kind, x, y, text: row.text ?? "" } : null;
    case "highlight":
      return hasPoint && typeof width === "number" && typeof height === "number" ? { kind: "highlight", x, y, width, height } : null;
    case "pen":
      return Array.isArray(points) && points.length > 0 ? { kind: "pen", points } : null;
  }
}
