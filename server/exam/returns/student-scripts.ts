import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { annotationInWords } from "../../../lib/rules/annotation";
import { type Db, type Tx, rowsOf } from "../../db/client";
import { asService, asUser } from "../../db/rls";
import {
  examAnnotations,
  examMarkEntries,
  examQuestions,
  examResponseAreas,
  examRubricItems,
  examSubmissions,
  examTemplates,
  files,
  institutes,
} from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { graphStore } from "../../graph/index";
import { recordId } from "../../http/record-id";
import { logger } from "../../logger";
import { objectStorage } from "../../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound } from "../../storage/object-storage";
import { isRubricDetail } from "../rubrics";
import { scanPageOf } from "../scan-page-numbers";
import { whatToRevise } from "./what-to-revise";
import { myReleasedBatches } from "./released-batches";

/**
 * The student's "My work" (issue 35, item 3): their released scripts, read under the student's own
 * transaction (asUser). Row-level security is the guard (drizzle/…_returns_security.sql): a student reads a
 * script of theirs only while it and its batch are released, its marks, its first marking's annotations
 * and the paper. Every query also names app.my_released_submission_ids(), so a member of staff, who reads
 * their batches' submissions under the same policies, finds no script here either: this is the student's
 * view of their own work, nobody else's. Another student's script, an unreleased or withdrawn one and
 * another school's read alike: 404, "Script not found". No name is in any reply: not the student's,
 * not a marker's.
 */

export const scriptIdInput = z.object({ submission_id: recordId("Script") });

const marks = z.number().describe("Marks, to two decimals");
const dateTime = z.string().describe("ISO 8601 date-time");

const myScriptSummary = z.object({
  submission_id: z.uuid(),
  batch_id: z.uuid(),
  batch_title: z.string(),
  paper_title: z.string(),
  released_at: dateTime,
  reviews_until: dateTime.nullable().describe("Review requests are open until then; null when the release takes none"),
  total_awarded: marks,
  total_available: marks,
});
export const myScriptsOutput = z.object({ scripts: z.array(myScriptSummary) });

const rectangle = { x: z.number(), y: z.number(), width: z.number(), height: z.number() };
const annotationOutput = z.object({
  id: z.uuid(),
  page: z.number().int().describe("The page of the scan the shape is on, 1-based"),
  kind: z.enum(["tick", "cross", "text", "pen", "highlight", "stamp"]),
  geometry: z
    .object({
      x: z.number().optional(),
      y: z.number().optional(),
      width: z.number().optional(),
      height: z.number().optional(),
      points: z.array(z.array(z.number())).optional(),
    })
    .describe("Page-relative, 0–1 on both axes: an anchor point, a rectangle (highlight), or points [x, y, pressure] (pen)"),
  text: z.string().nullable(),
  question_id: z.uuid().nullable(),
  alt: z.string().describe("The shape in words, for a screen reader: \"Tick on question 3b\", a comment's words"),
});

export const markedScriptOutput = z.object({
  submission_id: z.uuid(),
  batch_title: z.string(),
  paper_title: z.string(),
  released_at: dateTime,
  reviews_until: dateTime.nullable(),
  scan: z.object({
    url: z.string().nullable().describe("Where the scan's PDF is fetched (the student's own route); null when no scan was uploaded"),
    page_count: z.number().int().describe("Pages of the script: the scan's, else the paper's"),
  }),
  pages: z.array(z.object({ page: z.number().int(), annotations: z.array(annotationOutput) })),
  questions: z.array(
    z.object({
      id: z.uuid(),
      label: z.string(),
      max_marks: marks,
      awarded_marks: marks.nullable().describe("null when the question has no mark"),
      comment: z.string().nullable(),
      rubric_items: z.array(z.object({ id: z.uuid(), text: z.string(), points: marks })),
      areas: z.array(z.object({ page: z.number().int().describe("The page of the scan that holds this area (a page not scanned: no area)"), ...rectangle })),
      spec_ref: z.string().nullable(),
    }),
  ),
  total_awarded: marks,
  total_available: marks,
  what_to_revise: z.array(
    z.object({
      spec_ref: z.string(),
      name: z.string().describe("As the curriculum graph names the point; the reference itself when the graph has no such point"),
      marks_lost: marks,
      marks_available: marks,
      share_lost: z.number(),
      questions: z.array(z.string()).describe("Labels of the questions that assess it"),
    }),
  ),
});
export type MarkedScript = z.output<typeof markedScriptOutput>;

const iso = (value: string | Date) => new Date(value).toISOString();
const toMarks = (value: string | number | null) => (value === null ? 0 : Math.round(Number(value) * 100) / 100);
const sum = (values: number[]) => values.reduce((total, value) => total + Math.round(value * 100), 0) / 100;
const mine = sql`${examSubmissions.id} IN (SELECT app.my_released_submission_ids())`;

/** Leaf questions of the templates, in the paper's order (containers never hold marks). */
async function leafQuestions(tx: Tx, templateIds: string[]) {
  if (templateIds.length === 0) return [];
  return tx
    .select()
    .from(examQuestions)
    .where(inArray(examQuestions.template_id, templateIds))
    .orderBy(asc(examQuestions.order), asc(examQuestions.label), asc(examQuestions.id));
}

/** The caller's released scripts, newest release first. */
export async function listMyScripts(tx: Tx): Promise<z.output<typeof myScriptsOutput>> {
  const batches = await myReleasedBatches(tx);
  const submissions = await tx
    .select({ id: examSubmissions.id, batch_id: examSubmissions.batch_id, released_at: examSubmissions.released_at })
    .from(examSubmissions)
    .where(mine);
  const templateIds = [...new Set([...batches.values()].map((batch) => batch.template_id))];
  const templates = templateIds.length === 0 ? [] : await tx.select({ id: examTemplates.id, title: examTemplates.title }).from(examTemplates).where(inArray(examTemplates.id, templateIds));
  const questions = (await leafQuestions(tx, templateIds)).filter((question) => !question.is_container);
  const ids = submissions.map((submission) => submission.id);
  const awarded =
    ids.length === 0
      ? []
      : await tx
          .select({ submission_id: examMarkEntries.submission_id, awarded: examMarkEntries.awarded_marks })
          .from(examMarkEntries)
          .where(inArray(examMarkEntries.submission_id, ids));
  const scripts = submissions.flatMap((submission) => {
    const batch = batches.get(submission.batch_id);
    if (!batch || !submission.released_at) return [];
    return [
      {
        submission_id: submission.id,
        batch_id: batch.id,
        batch_title: batch.title,
        paper_title: templates.find((template) => template.id === batch.template_id)?.title ?? batch.title,
        released_at: iso(batch.released_at),
        reviews_until: batch.reviews_until === null ? null : iso(batch.reviews_until),
        total_awarded: sum(awarded.filter((mark) => mark.submission_id === submission.id).map((mark) => toMarks(mark.awarded))),
        total_available: sum(questions.filter((question) => question.template_id === batch.template_id).map((question) => toMarks(question.max_marks))),
      },
    ];
  });
  return { scripts: scripts.sort((a, b) => (a.released_at < b.released_at ? 1 : a.released_at > b.released_at ? -1 : a.batch_title.localeCompare(b.batch_title))) };
}

/** Names specification points as the curriculum graph names them (reference → name); a port, so the read model stays under the student's transaction. */
type PointNames = (curriculumDatabase: string, refs: string[]) => Promise<Map<string, string>>;


/**
 * One released script of the caller, as the student reads it: the pages with the first marking's
 * annotations (each with its text alternative), the questions in the paper's order with their marks,
 * comments, rubric items applied and response areas, the total, and what to revise. The marked PDF
 * (server/exam/returns/marked-pdf/) reads a script through it too.
 * @public
 */
export async function readMarkedScript(tx: Tx, submissionId: string, pointNames?: PointNames): Promise<MarkedScript> {
  const { submission_id: id } = scriptIdInput.parse({ submission_id: submissionId });
  const [submission] = await tx.select().from(examSubmissions).where(and(eq(examSubmissions.id, id), mine));
  const batch = submission && (await myReleasedBatches(tx, submission.batch_id)).get(submission.batch_id);
  if (!submission?.released_at || !batch) throw notFound("Script");
  const [template] = await tx.select({ title: examTemplates.title, page_count: examTemplates.page_count }).from(examTemplates).where(eq(examTemplates.id, batch.template_id));
  const allQuestions = await leafQuestions(tx, [batch.template_id]);
  const byId = new Map(allQuestions.map((question) => [question.id, question]));
  const questions = allQuestions.filter((question) => !question.is_container);
  const paperAreas = await tx.select().from(examResponseAreas).where(eq(examResponseAreas.template_id, batch.template_id)).orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y), asc(examResponseAreas.x));
  // Response areas are on the paper's pages; placed on the scan page that holds each (a page missing from
  // the pile shifts nothing), and left off where that page was not scanned. Annotations are on the scan's pages.
  const [placement] = rowsOf<{ pages: number[] | null }>(await tx.execute(sql`select app.my_released_scan_page_numbers(${id}) as pages`));
  const pageNumbers = placement?.pages ?? null;
  const areas = paperAreas.flatMap((area) => {
    const page = scanPageOf(pageNumbers, area.page);
    return page === null ? [] : [{ ...area, page }];
  });
  const rubricItems = await tx.select().from(examRubricItems).where(eq(examRubricItems.template_id, batch.template_id));
  const markRows = await tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, id));
  const annotations = await tx
    .select()
    .from(examAnnotations)
    .where(and(eq(examAnnotations.submission_id, id), eq(examAnnotations.layer, "marking")))
    .orderBy(asc(examAnnotations.page), asc(examAnnotations.created_at), asc(examAnnotations.id));

  /** A part's own specification point, or its question's when it names none. */
  const specRefOf = (questionId: string): string | null => {
    for (let question = byId.get(questionId), depth = 0; question && depth < 16; question = question.parent_id ? byId.get(question.parent_id) : undefined, depth++) {
      const ref = question.spec_ref?.trim();
      if (ref) return ref;
    }
    return null;
  };
  const markOf = new Map(markRows.map((mark) => [mark.question_id, mark]));
  const scriptQuestions = questions.map((question) => {
    const mark = markOf.get(question.id);
    const applied = mark && isRubricDetail(mark.mark_scheme_detail) ? ((mark.mark_scheme_detail as { items: string[] }).items ?? []) : [];
    return {
      id: question.id,
      label: question.label,
      max_marks: toMarks(question.max_marks),
      awarded_marks: mark?.awarded_marks == null ? null : toMarks(mark.awarded_marks),
      comment: mark?.comment ?? null,
      rubric_items: applied.flatMap((itemId) => {
        const item = rubricItems.find((candidate) => candidate.id === itemId);
        return item ? [{ id: item.id, text: item.text, points: toMarks(item.points) }] : [];
      }),
      areas: areas.filter((area) => area.question_id === question.id).map((area) => ({ page: area.page, x: area.x, y: area.y, width: area.width, height: area.height })),
      spec_ref: specRefOf(question.id),
    };
  });

  /** The question an annotation is about: its own, else the response area its anchor falls in on its page. */
  const questionAt = (annotation: (typeof annotations)[number]) => {
    if (annotation.question_id && byId.has(annotation.question_id)) return byId.get(annotation.question_id)!;
    const geometry = annotation.geometry;
    const [x, y] = geometry.points?.[0] ?? [(geometry.x ?? 0) + (geometry.width ?? 0) / 2, (geometry.y ?? 0) + (geometry.height ?? 0) / 2];
    const area = areas.find((candidate) => candidate.page === annotation.page && x >= candidate.x && x <= candidate.x + candidate.width && y >= candidate.y && y <= candidate.y + candidate.height);
    return area ? byId.get(area.question_id) : undefined;
  };
  const presented = annotations.map((annotation) => {
    const question = questionAt(annotation);
    return {
      id: annotation.id,
      page: annotation.page,
      kind: annotation.kind,
      geometry: annotation.geometry,
      text: annotation.text,
      question_id: question?.id ?? null,
      alt: annotationInWords(annotation, question?.label),
    };
  });

  const pageCount = Math.max(submission.page_count ?? pageNumbers?.length ?? template?.page_count ?? 0, ...areas.map((area) => area.page), ...annotations.map((annotation) => annotation.page), 1);
  const ranked = whatToRevise(scriptQuestions.map((question) => ({ label: question.label, specRef: question.spec_ref, maxMarks: question.max_marks, awardedMarks: question.awarded_marks })));
  let names = new Map<string, string>();
  if (pointNames && ranked.length > 0) {
    const [school] = await tx.select({ curriculum: institutes.curriculum_db_name }).from(institutes).where(eq(institutes.id, batch.institute_id));
    if (school) names = await pointNames(school.curriculum, ranked.map((point) => point.spec_ref));
  }
  return {
    submission_id: submission.id,
    batch_title: batch.title,
    paper_title: template?.title ?? batch.title,
    released_at: iso(batch.released_at),
    reviews_until: batch.reviews_until === null ? null : iso(batch.reviews_until),
    scan: { url: submission.scan_file_id ? `/api/me/scripts/${submission.id}/scan` : null, page_count: pageCount },
    pages: Array.from({ length: pageCount }, (_, index) => ({ page: index + 1, annotations: presented.filter((annotation) => annotation.page === index + 1) })),
    questions: scriptQuestions,
    total_awarded: sum(scriptQuestions.map((question) => question.awarded_marks ?? 0)),
    total_available: sum(scriptQuestions.map((question) => question.max_marks)),
    what_to_revise: ranked.map((point) => ({ ...point, name: names.get(point.spec_ref) ?? point.spec_ref })),
  };
}

/** The curriculum graph's names of specification points (its `name`), read with the application's rights: the graph is not under row-level security. */
export const curriculumPointNames =
  (db: Db): PointNames =>
  async (curriculumDatabase, refs) => {
    const store = graphStore(db);
    const named = await Promise.all(
      refs.map(async (ref) => {
        const node = await store.getNode(curriculumDatabase, ref).catch(() => null);
        const name = node?.properties.name;
        return typeof name === "string" && name.trim() ? ([ref, name.trim()] as const) : null;
      }),
    );
    return new Map(named.filter((entry) => entry !== null));
  };

/**
 * GET /api/me/scripts/{id}: the script under the student's transaction; its points are named from the
 * graph after the transaction ends (on PGlite's single connection a read beside an open transaction would wait for it).
 */
export async function getMyScript(db: Db, callerId: string, submissionId: string): Promise<MarkedScript> {
  let asked: { curriculumDatabase: string; refs: string[] } | undefined;
  const script = await asUser(db, callerId, (tx) =>
    readMarkedScript(tx, submissionId, async (curriculumDatabase, refs) => {
      asked = { curriculumDatabase, refs };
      return new Map();
    }),
  );
  if (!asked) return script;
  const names = await curriculumPointNames(db)(asked.curriculumDatabase, asked.refs);
  return { ...script, what_to_revise: script.what_to_revise.map((point) => ({ ...point, name: names.get(point.spec_ref) ?? point.spec_ref })) };
}

/**
 * GET /api/me/scripts/{id}/scan: the scan of one released script of the caller, streamed from storage.
 * The script is found under the student's transaction first (released, theirs); the file's row is then
 * read by the id that row gave, with service rights, since files are readable by staff only (the policy
 * files_read). A script without a scan, or a file missing from storage, is 404 as any other. The student
 * gets their own scan as scanned: in an anonymous batch the name on it is theirs.
 */
export async function openMyScriptScan(db: Db, callerId: string, submissionId: string, options: { storage?: ObjectStorage } = {}) {
  const { submission_id: id } = scriptIdInput.parse({ submission_id: submissionId });
  const fileId = await asUser(db, callerId, async (tx) => {
    const [row] = await tx.select({ file: examSubmissions.scan_file_id }).from(examSubmissions).where(and(eq(examSubmissions.id, id), mine));
    // `mine`: the caller's own script, released, in a released batch of their school.
    return row?.file ?? null;
  });
  if (!fileId) throw notFound("Script");
  const [file] = await asService(db, (tx) => tx.select().from(files).where(eq(files.id, fileId)));
  if (!file) throw notFound("Script");
  const storage = options.storage ?? objectStorage();
  try {
    return { contentType: file.content_type, byteSize: file.byte_size, body: await storage.get(file.bucket, file.storage_key) };
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("Script");
    logger.error("scan read failed", error);
    throw new AppError("upstream", "The scan could not be read from storage; try again");
  }
}
