import { snapshotOperations } from "./classroom/canvas-operations";
import { classOperations } from "./classroom/class-operations";
import { batchOperations } from "./exam/batch-operations";
import { intakeOperations } from "./exam/intake/intake-operations";
import { markOperations } from "./exam/mark-operations";
import { submissionOperations } from "./exam/submission-operations";
import { examCatalogueOperations } from "./exam/catalogue-operations";
import { commentOperations } from "./exam/comment-operations";
import { examFileOperations } from "./exam/file-operations";
import { questionOperations } from "./exam/question-operations";
import { rubricOperations } from "./exam/rubric-operations";
import { copyTemplateOperations, markSchemeOperations } from "./exam/mark-scheme/mark-scheme-operations";
import { templateOperations } from "./exam/template-operations";
import { timetableOperations } from "./classroom/timetable-operations";
import { claimOperations } from "./exam/claim-operations";
import { markerOperations } from "./exam/marker-operations";
import { moderationOperations } from "./exam/moderation-operations";
import { reviewOperations, studentReviewOperations } from "./exam/returns/review-operations";
import { releaseOperations } from "./exam/returns/release-operations";
import { annotationOperations } from "./exam/returns/annotation-operations";
import { answerOperations } from "./exam/answers/answer-operations";
import { returnsOperations } from "./exam/returns/returns-operations";
import { graphOperations } from "./graph/operations";
import { templateGraphOperations } from "./exam/graph-operations";
import { meOperations, peopleOperations, rosterImportOperations, tokenOperations } from "./identity/operations";
import { speechApiKeyOperations, speechOperations } from "./speech/operations";
import { studentScriptOperations } from "./exam/returns/student-operations";
import type { AnyOperation } from "./operations/define";
import { operationRouteIn } from "./operations/rest";

/**
 * The operation catalogue (not the exam papers' catalogue, server/exam/catalogue.ts): every operation defined once (server/operations/define.ts), by domain. The tRPC
 * routers (server/trpc/root.ts), the REST definitions (server/rest-routes.ts, hence /api/openapi.json),
 * the Next.js route exports under app/ and the cross-school matrix's expectations are derived from it.
 * Domains not yet moved onto it keep their hand-written routers and `defineRoute`s beside it
 * (docs/decisions/http-and-errors.md, "Moving the other domains: the checklist, and the pitfalls met").
 */
export const operationCatalogue = {
  me: meOperations,
  tokens: tokenOperations,
  people: peopleOperations,
  // The template's projection is the exam wing's (it takes a template id); browsing children is the graph's.
  graph: { ...templateGraphOperations, ...graphOperations },
  snapshots: snapshotOperations,
  timetables: timetableOperations,
  classes: classOperations,
  rosterImport: rosterImportOperations,
  // A sub-router is a set of operations inside a domain's (`speech.apiKeys.list`); server/trpc/root.ts builds the nesting.
  speech: { ...speechOperations, apiKeys: speechApiKeyOperations },
  // Exam's sub-routers, every one on the catalogue (server/trpc/root.ts nests them); `files` is REST only (no tRPC sub-router).
  exam: {
    catalogue: examCatalogueOperations,
    // A template's structure and rubric copied from another paper (issue 37, item 4).
    templates: { ...templateOperations, ...copyTemplateOperations },
    questions: questionOperations,
    // A mark scheme read into rubric items (issue 37, item 3).
    rubric: { ...rubricOperations, ...markSchemeOperations },
    comments: commentOperations,
    files: examFileOperations,
    markers: markerOperations,
    claims: claimOperations,
    moderation: moderationOperations,
    batches: batchOperations,
    submissions: submissionOperations,
    intake: intakeOperations,
    marks: markOperations,
    reviews: reviewOperations,
    release: releaseOperations,
    annotations: annotationOperations,
    // Answers read from the scan: ticks, blanks, groups of identical answers (issue 36).
    answers: answerOperations,
    // Marked work as files (REST only: no tRPC sub-router).
    returns: returnsOperations,
  },
  // What a student does with their released work (issue 35): My work (`scripts.scan` is REST only) and review requests.
  student: { scripts: studentScriptOperations, reviews: studentReviewOperations },
};

/** A catalogue's entry: an operation, or a set of them (a domain, or a sub-router of one). */
type CatalogueEntry = AnyOperation | { [name: string]: CatalogueEntry };
const isOperation = (entry: CatalogueEntry): entry is AnyOperation => typeof entry.handler === "function" && typeof entry.kind === "string";
const listed = (path: string, entry: CatalogueEntry): { name: string; operation: AnyOperation }[] =>
  isOperation(entry) ? [{ name: path, operation: entry }] : Object.entries(entry).flatMap(([name, inner]) => listed(`${path}.${name}`, inner));

/** Every operation of the catalogue with its path of names (`people.list`, `speech.apiKeys.list`), the tRPC procedure's path. */
export const listedOperations: { name: string; operation: AnyOperation }[] = Object.entries(operationCatalogue).flatMap(([domain, operations]) =>
  listed(domain, operations as CatalogueEntry),
);

/** The Next.js export of the operation at `METHOD path`: `export const GET = operationRoute("GET", "/api/school/people")`. */
export const operationRoute = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string) =>
  operationRouteIn(
    listedOperations.map(({ operation }) => operation),
    method,
    path,
  );
