import crypto from "node:crypto";
import fs from "node:fs";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { emptyCanvasSnapshot } from "../server/classroom/canvas-snapshot-content";
import { verifySyncToken } from "../server/classroom/sync-tokens";
import type { Db } from "../server/db/client";
import { env } from "../server/env";
import { errorCodes } from "../server/errors";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { processScanPile } from "../server/exam/intake/pile-job";
import { allJobKinds } from "../server/composition/job-kinds";
import { runDueJobs } from "../server/jobs/run";
import { listedOperations } from "../server/operation-catalogue";
import { type AnyOperation, type OperationRole, pathParameterNames } from "../server/operations/define";
import { appRouter, createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createCataloguePaper, createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { imagingDouble, testPile } from "./support/intake-imaging-double";
import { pagesOfPile, printedBatch } from "./support/intake-fixtures";
import { releaseForTest } from "./support/release-fixtures";
import { type HttpMethod, type RestRoute, type RouteCall, callRoute, loadRestRoutes } from "./support/rest-routes";

/**
 * The cross-school matrix (issue 14): every REST route and every tRPC procedure, called by each of
 * school B's roles and aimed at school A's resources, must refuse as if they did not exist (404, or
 * the contract's 403), say so in `{detail}` without naming anything of A's, answer exactly as it does
 * for ids that exist nowhere, and leave A's data as it was. Lists must hold B's rows only.
 *
 * The tests are generated from the route files on disk and from the tRPC router: a route or procedure
 * without an entry in the tables below is a failing test until someone writes down how it must answer.
 */

// A data folder of this file's own (uploaded files, scans, canvas snapshots), set before anything reads the configuration.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-tenants-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  return directory;
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

type Role = "admin" | "head" | "teacher" | "student";
const roles: Role[] = ["admin", "head", "teacher", "student"];
type Person = School["teacher"];

/** School A's resources as B aims at them: the real ids, or their ghosts (the same shapes, existing nowhere). */
interface Target {
  instituteId: string;
  graphDb: string;
  curriculumDb: string;
  teacherId: string;
  teacherDb: string;
  templateId: string;
  questionId: string;
  /** The response area of A's question (questionId). */
  responseAreaId: string;
  /** A rubric item of A's question, and a comment saved for it. */
  rubricItemId: string;
  savedCommentId: string;
  fileId: string;
  classId: string;
  studentId: string;
  batchId: string;
  submissionId: string;
  unmatchedSubmissionId: string;
  /** A colleague of A's teacher, invited to mark A's batch (shared marking) and holding a claim on (submission, question). */
  markerId: string;
  /** A batch of printed scripts with a scanned pile filed (class-set intake), and a page of it. */
  intakeBatchId: string;
  scanPageId: string;
  markId: string;
  /** A review request A's student made of A's released script. */
  reviewRequestId: string;
  /** A text comment of A's teacher on A's scanned script. */
  annotationId: string;
  timetableId: string;
  entryId: string;
  apiKeyId: string;
  tokenId: string;
  lessonPath: string;
  teacherCanvasPath: string;
  /** The paper node of A's template in A's curriculum graph: a catalogue code, which B's schools may use too. */
  paperKey: string;
}

/** B's own resources, for calls that point from B's things at A's. */
interface Own {
  templateId: string;
  /** A template of B's on the same catalogue paper as A's. */
  samePaperTemplateId: string;
  questionId: string;
  classId: string;
  batchId: string;
  submissionId: string;
  unmatchedSubmissionId: string;
  timetableId: string;
  graphDb: string;
  curriculumDb: string;
}

interface Aim {
  a: Target;
  me: Person;
  b: Own;
}

/**
 * What a call must answer: a refusal with that status (`{detail}` on REST, the matching tRPC code),
 * `own` (success, with nothing of A's in it: lists and the caller's own things), or `isolated` (canvas
 * addresses that B may use in B's own database: refused, or answered without A's canvas).
 */
type Answer = 400 | 403 | 404 | 409 | "own" | "isolated";

interface Case<Call> {
  /** How the call is aimed at A. */
  aim: string;
  /** One answer for every role of B, or one per role (a role left out is not called). */
  answer: Answer | Partial<Record<Role, Answer>>;
  build(aim: Aim): Call;
  /**
   * false when the answer for A's ids may rightly differ from the answer for ids that exist nowhere:
   * a client-chosen global key that A already holds cannot be taken, whoever asks.
   */
  ghost?: false;
  /** Further checks of a reply that is not a refusal. */
  check?(reply: unknown): Promise<void>;
}

const bucket = () => env().SNAPSHOT_BUCKET;
const json = (body: unknown): RouteCall => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
/** A roster CSV of B's whose SIS id and class code are A's ids: imported into B's school, matching nothing of A's. */
const rosterCsvAimedAt = (a: Target) => `id,name,email,classes\n${a.studentId},Beta Import,beta.import.${a.instituteId.slice(0, 8)}@beta-import.example.org,${a.classId}\n`;
const rosterCsvOfB = "id,name,email,classes\nB-1,Beta Import,beta.import@beta-import.example.org,Beta 7X\n";
const rosterCsvCall = (csv: string): RouteCall => ({ body: csv, headers: { "content-type": "text/csv" } });
const rosterCsvFile = (csv: string) => ({ name: "roster.csv", base64: Buffer.from(csv).toString("base64") });
/** The value a `json()` call carries, for the tRPC procedure that takes the same input. */
function jsonOf(call: RouteCall) {
  if (typeof call.body !== "string") throw new Error("expected a JSON body");
  return JSON.parse(call.body) as unknown;
}
const snapshotQuery = (path: string, dbName: string) => ({ path, db_name: dbName });
const canvasWith = (marker: string) => {
  const snapshot = emptyCanvasSnapshot() as { document: { store: Record<string, unknown> } };
  snapshot.document.store["shape:marker"] = { id: "shape:marker", typeName: "shape", type: "text", props: { text: marker } };
  return snapshot;
};
/** A canvas B writes: new text every time, so that an overwrite of A's canvas always shows. */
const canvasOfB = () => json(canvasWith(`beta-${crypto.randomUUID()}`));
const scanUpload = (studentId?: string): RouteCall => {
  const form = multipartBody([
    { name: "file", filename: "scan.pdf", bytes: pdfBytes() },
    ...(studentId ? [{ name: "student_id", value: studentId }] : []),
  ]);
  return { body: form.body, headers: { "content-type": form.contentType, "content-length": String(form.body.length) } };
};
const paperUpload = (bytes: Uint8Array, filename = "paper.pdf"): RouteCall => {
  const form = multipartBody([{ name: "file", filename, bytes }]);
  return { body: form.body, headers: { "content-type": form.contentType, "content-length": String(form.body.length) } };
};

/** A sync token B obtained must not open A's room (whatever the room is called once rooms are per database). */
const syncTokenOpensNoRoomOfA = async (reply: unknown) => {
  const token = (reply as { token?: string }).token;
  expect.soft(token, "a sync token in the reply").toBeTypeOf("string");
  for (const room of roomsOfA) {
    await expect.soft(verifySyncToken(token ?? "", room), `a token issued to B opens A's room ${room.room}`).rejects.toThrow();
  }
};
/** The rooms A's own sync tokens name, with their databases (filled in by the fixtures). */
let roomsOfA: { room: string; db_name: string }[] = [];
/** ETags of A's cached REST lists (filled in by the fixtures). */
const etagsOfA: Partial<Record<"classStudents" | "paperChildren" | "classes" | "schoolStudents", string>> = {};

// ── The REST table: "METHOD /openapi/path" → how B aims at A, and what it must answer ────────────

const staffOnly = (answer: Answer): Partial<Record<Role, Answer>> => ({ admin: answer, head: answer, teacher: answer, student: 403 });
const ownerOnly = (answer: Answer): Partial<Record<Role, Answer>> => ({ teacher: answer });

/** A new student of B's, with an email nobody uses yet. */
const newPerson = () => ({ full_name: "Beta Person", email: `beta.${crypto.randomUUID()}@example.org`, role: "student" });

// Every REST route is the face of an operation of the catalogue now: its cases are filled in from operationMatrix below.
const restMatrix: Record<string, Case<RouteCall>[]> = {};

/** B's own template's canvas, with its one question under an id that A's template already holds. */
function canvasTakingQuestionId(questionId: string) {
  return {
    questions: [{ id: questionId, label: "1", order: 0, max_marks: 5, is_container: false }],
    response_areas: [],
    boundaries: [],
  };
}

// ── The catalogue's table: operation → how B aims at A, and what a caller with its role must answer ──
//
// An operation of the catalogue (server/operation-catalogue.ts) is tabled once, by the input it takes: its tRPC
// procedure is called with that input, and its REST face with the same input split as the face reads
// it (path segments, then the query or the JSON body). B's roles that lack the operation's declared
// role must be refused (403): the declaration is checked here, RLS and the domain stay the authority.

interface OperationCase {
  aim: string;
  /**
   * What a caller of B's who holds the operation's role must get; the others get 403. Or one answer per
   * role, said whole (a role left out is not called): for a case only an owner can reach, say.
   */
  answer: Answer | Partial<Record<Role, Answer>>;
  input(aim: Aim): Record<string, unknown> | undefined;
  /** What the REST call carries besides the input: a streamed body (an upload), a header (an ETag A got). */
  rest?(aim: Aim): RouteCall;
  ghost?: false;
  check?: (reply: unknown) => Promise<void>;
}

const rolesHolding: Record<OperationRole, Role[]> = {
  "signed-in": roles,
  staff: ["admin", "head", "teacher"],
  "timetable-manager": ["admin", "head"],
  "school-admin": ["admin"],
};

const slipsAimedAtA: OperationCase[] = [
  { aim: "A's class", answer: 404, input: ({ a }) => ({ class_id: a.classId, reissue: true }) },
  { aim: "A's teacher and student", answer: 404, input: ({ a }) => ({ user_ids: [a.teacherId, a.studentId], reissue: true }) },
];

/** One answer for each of B's roles, whatever role the operation declares: visibility before role. */
const everyRole = (answer: Answer): Record<Role, Answer> => ({ admin: answer, head: answer, teacher: answer, student: answer });
const entry = { day: 2, period: 3, start_time: "11:00", end_time: "12:00" };

const graphSyncAimedAtA = [
  { aim: "A's template", answer: 404, input: ({ a }: Aim) => ({ template_id: a.templateId }) },
  // B projects into B's own curriculum graph: A's paper keeps its questions, parts and regions.
  { aim: "B's own template on A's catalogue paper", answer: ownerOnly("own"), input: ({ b }: Aim) => ({ template_id: b.samePaperTemplateId }) },
] satisfies OperationCase[];

const classStudentAimedAtA = [
  { aim: "A's class and student", answer: everyRole(404), input: ({ a }: Aim) => ({ class_id: a.classId, student_id: a.studentId }) },
  { aim: "A's class, B's student", answer: everyRole(404), input: ({ a, me }: Aim) => ({ class_id: a.classId, student_id: me.id }) },
  { aim: "B's class, A's student", answer: 400, input: ({ a, b }: Aim) => ({ class_id: b.classId, student_id: a.studentId }) },
] satisfies OperationCase[];

/** The REST body of PUT /database/timetable/classes/{class_id}/teachers, with the class of its path. */
type ClassTeachers = { class_id: string; teacher_id: string | null; other_teacher_ids?: string[] };
const classTeachersAimedAtA: (Omit<OperationCase, "input"> & { input(aim: Aim): ClassTeachers })[] = [
  { aim: "A's class, A's teacher", answer: everyRole(404), input: ({ a }) => ({ class_id: a.classId, teacher_id: a.teacherId, other_teacher_ids: [a.markerId] }) },
  { aim: "A's class, B's own people", answer: everyRole(404), input: ({ a, me }) => ({ class_id: a.classId, teacher_id: me.id, other_teacher_ids: [] }) },
  { aim: "A's class, no teacher", answer: everyRole(404), input: ({ a }) => ({ class_id: a.classId, teacher_id: null }) },
  { aim: "B's class, A's teacher as main", answer: 400, input: ({ a, b }) => ({ class_id: b.classId, teacher_id: a.teacherId }) },
  { aim: "B's class, A's teacher among the others", answer: 400, input: ({ a, b }) => ({ class_id: b.classId, teacher_id: null, other_teacher_ids: [a.markerId] }) },
];

/** The results' REST reads (the JSON, the CSV and the exports): reveal_names from the query string. */
const resultsReadsAimedAtA = (...names: string[]): Record<string, OperationCase[]> =>
  Object.fromEntries(
    names.map((name) => [
      `exam.batches.${name}`,
      [
        { aim: "A's batch", answer: 404, input: ({ a }: Aim) => ({ batch_id: a.batchId }) },
        { aim: "A's batch, names revealed", answer: 404, input: ({ a }: Aim) => ({ batch_id: a.batchId, reveal_names: "true" }) },
      ],
    ]),
  );

/** A canvas address aimed at A: refused, or answered from B's own database without A's canvas. */
const canvasAimedAtA: OperationCase[] = [
  { aim: "A's lesson in A's database", answer: 403, input: ({ a }) => snapshotQuery(a.lessonPath, a.graphDb) },
  { aim: "A's lesson named in B's own database", answer: "isolated", input: ({ a, b }) => snapshotQuery(a.lessonPath, b.graphDb) },
  { aim: "A's teacher's canvas in A's teacher's database", answer: 403, input: ({ a }) => snapshotQuery(a.teacherCanvasPath, a.teacherDb) },
  { aim: "A's teacher's canvas named in B's own database", answer: "isolated", input: ({ a, me }) => snapshotQuery(a.teacherCanvasPath, me.user_db_name) },
];

const operationMatrix: Record<string, OperationCase[]> = {
  "me.profile": [{ aim: "the caller's profile", answer: "own", input: () => undefined }],
  "me.bootstrap": [{ aim: "the caller's profile", answer: "own", input: () => ({}) }],
  // B's people have no password to type, whoever they are.
  "me.choosePassword": [{ aim: "the caller's own password", answer: 400, input: () => ({ current_password: "not-my-password", new_password: "a new password" }) }],
  "tokens.list": [{ aim: "the caller's tokens", answer: "own", input: () => undefined }],
  "tokens.create": [{ aim: "a token of the caller's own", answer: "own", input: () => ({ name: "beta token", ttlDays: 1 }) }],
  "tokens.revoke": [{ aim: "A's teacher's token", answer: 404, input: ({ a }) => ({ id: a.tokenId }) }],
  "people.list": [
    { aim: "the list", answer: "own", input: () => ({}) },
    { aim: "filtered by A's class", answer: "own", input: ({ a }) => ({ class_id: a.classId }) },
  ],
  "people.add": [
    { aim: "a person of B's own", answer: "own", input: () => newPerson() },
    { aim: "a student of B's in A's class", answer: 400, input: ({ a }) => ({ ...newPerson(), class_ids: [a.classId] }) },
  ],
  "people.get": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId }) }],
  "people.editPerson": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId, full_name: "Taken over", role: "student", active: false }) }],
  "people.resetPassword": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId }) }],
  "people.printSignInSlips": slipsAimedAtA,
  "people.edit": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId, full_name: "Taken over" }) }],
  "people.changeRole": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId, role: "school_admin" }) }],
  "people.setActive": [{ aim: "A's teacher", answer: 404, input: ({ a }) => ({ user_id: a.teacherId, active: false }) }],
  "people.signInSlipsPreview": slipsAimedAtA,
  "graph.syncTemplate": graphSyncAimedAtA.map((kase) => ({ ...kase, input: (aim: Aim) => ({ templateId: kase.input(aim).template_id }) })),
  "graph.syncTemplateGraph": graphSyncAimedAtA,
  // The REST route (GET /graph/node/children) is hand-written (the reply cache); its cases, ETag and all, aim the same input.
  "graph.children": [
    { aim: "A's paper in A's curriculum database", answer: 403, input: ({ a }) => ({ neo4j_node_id: a.paperKey, neo4j_db_name: a.curriculumDb }) },
    // B has a template on the same catalogue paper: B's own paper node, holding none of A's questions.
    { aim: "A's paper code in B's own curriculum database", answer: "own", input: ({ a, b }) => ({ neo4j_node_id: a.paperKey, neo4j_db_name: b.curriculumDb }) },
    { aim: "A's teacher's personal database", answer: 403, input: ({ a }) => ({ neo4j_node_id: a.teacherId, neo4j_db_name: a.teacherDb }) },
    {
      aim: "A's paper in A's curriculum database, with the ETag A got",
      answer: 403,
      input: ({ a }) => ({ neo4j_node_id: a.paperKey, neo4j_db_name: a.curriculumDb }),
      rest: () => ({ headers: { "if-none-match": etagsOfA.paperChildren! } }),
    },
  ],
  // The canvas faces judge the path before the token; the REST write streams the canvas, tRPC's takes it in the input.
  "snapshots.get": canvasAimedAtA,
  "snapshots.put": canvasAimedAtA.map((kase) => ({ ...kase, input: (aim: Aim) => ({ ...kase.input(aim), snapshot: jsonOf(canvasOfB()) }) })),
  "snapshots.putCanvasSnapshot": canvasAimedAtA.map((kase) => ({ ...kase, rest: () => canvasOfB() })),
  // The file travels in base64, so the check cannot see A's ids in what was sent: the REST case aims them at A.
  "rosterImport.preview": [{ aim: "a CSV of B's own", answer: "own", input: () => ({ files: [rosterCsvFile(rosterCsvOfB)] }) }],
  "rosterImport.commit": [{ aim: "a CSV of B's own", answer: "own", input: () => ({ files: [rosterCsvFile(rosterCsvOfB)] }) }],
  // REST's import: the CSV is the body itself, so A's ids are in what was sent.
  "rosterImport.importRoster": [
    { aim: "a CSV naming A's student and class ids, previewed", answer: "own", input: () => ({ dry_run: "true" }), rest: ({ a }) => rosterCsvCall(rosterCsvAimedAt(a)) },
  ],
  "timetables.list": [
    { aim: "the list", answer: "own", input: () => ({}) },
    { aim: "filtered by A's class", answer: "own", input: ({ a }) => ({ class_id: a.classId }) },
  ],
  "timetables.mine": [{ aim: "the caller's own lessons", answer: "own", input: () => undefined }],
  "timetables.get": [{ aim: "A's timetable", answer: 404, input: ({ a }) => ({ id: a.timetableId }) }],
  "timetables.create": [{ aim: "a class timetable for A's class", answer: 404, input: ({ a }) => ({ name: "Beta", type: "class", class_id: a.classId }) }],
  // A's timetables and entries are not found by anyone of B's, before any role is asked.
  "timetables.update": [{ aim: "A's timetable", answer: everyRole(404), input: ({ a }) => ({ id: a.timetableId, name: "Taken over" }) }],
  "timetables.activate": [{ aim: "A's timetable", answer: everyRole(404), input: ({ a }) => ({ id: a.timetableId }) }],
  "timetables.deactivate": [{ aim: "A's timetable", answer: everyRole(404), input: ({ a }) => ({ id: a.timetableId }) }],
  "timetables.delete": [{ aim: "A's timetable", answer: everyRole(404), input: ({ a }) => ({ id: a.timetableId }) }],
  "timetables.createEntry": [
    { aim: "A's timetable", answer: everyRole(404), input: ({ a }) => ({ timetable_id: a.timetableId, ...entry }) },
    { aim: "B's timetable with A's class", answer: 404, input: ({ a, b }) => ({ timetable_id: b.timetableId, ...entry, class_id: a.classId }) },
    { aim: "B's timetable with A's teacher", answer: 400, input: ({ a, b }) => ({ timetable_id: b.timetableId, ...entry, teacher_id: a.teacherId }) },
  ],
  "timetables.updateEntry": [{ aim: "A's entry", answer: everyRole(404), input: ({ a }) => ({ id: a.entryId, room: "Taken over" }) }],
  "timetables.deleteEntry": [{ aim: "A's entry", answer: everyRole(404), input: ({ a }) => ({ id: a.entryId }) }],
  "speech.dictationKey": [{ aim: "a key of the caller's own", answer: "own", input: () => undefined }],
  // The server's speech state: nothing of a school's in it (no ids, names or counts), and the details for school admins only.
  "speech.dictationStatus": [{ aim: "whether dictation works on this server", answer: "own", input: () => undefined }],
  "speech.serviceStatus": [{ aim: "the speech service's state", answer: "own", input: () => undefined }],
  "speech.apiKeys.list": [{ aim: "the keys an admin manages", answer: "own", input: () => undefined }],
  "speech.apiKeys.create": [{ aim: "a key of the caller's own school", answer: "own", input: () => ({ name: "beta key" }) }],
  "speech.apiKeys.revoke": [{ aim: "A's key", answer: 404, input: ({ a }) => ({ id: a.apiKeyId }) }],
  "classes.list": [
    { aim: "the list", answer: "own", input: () => undefined },
    { aim: "the list, with the ETag A got", answer: "own", input: () => undefined, rest: () => ({ headers: { "if-none-match": etagsOfA.classes! } }) },
  ],
  "classes.teaching": [{ aim: "the list", answer: "own", input: () => undefined }],
  "classes.enrolled": [{ aim: "the list", answer: "own", input: () => undefined }],
  "classes.schoolStudents": [
    { aim: "the list", answer: "own", input: () => undefined },
    { aim: "the list, with the ETag A got", answer: "own", input: () => undefined, rest: () => ({ headers: { "if-none-match": etagsOfA.schoolStudents! } }) },
  ],
  "classes.schoolStaff": [{ aim: "the list", answer: "own", input: () => undefined }],
  "classes.students": [{ aim: "A's class", answer: 404, input: ({ a }) => ({ classId: a.classId, includeInactive: true }) }],
  // REST's twin of students, through the reply cache: a cached reply of A's must not answer B, not even as a 304.
  "classes.listClassStudents": [
    { aim: "A's class", answer: 404, input: ({ a }) => ({ class_id: a.classId, include_inactive: "true" }) },
    { aim: "A's class, with the ETag A got", answer: 404, input: ({ a }) => ({ class_id: a.classId }), rest: () => ({ headers: { "if-none-match": etagsOfA.classStudents! } }) },
  ],
  // A's school and classes are not found by anyone of B's, before any role is asked.
  "classes.create": [
    { aim: "a class in A's school", answer: everyRole(404), input: ({ a }) => ({ instituteId: a.instituteId, name: "Beta class" }) },
    { aim: "a class of B's taught by A's teacher", answer: 400, input: ({ a }) => ({ name: "Beta class", teacherId: a.teacherId }) },
  ],
  "classes.rename": [{ aim: "A's class", answer: everyRole(404), input: ({ a }) => ({ classId: a.classId, name: "Taken over" }) }],
  "classes.setTeachers": classTeachersAimedAtA.map((kase) => ({
    ...kase,
    input: (aim: Aim) => {
      const { class_id, teacher_id, other_teacher_ids } = kase.input(aim);
      return { classId: class_id, teacherId: teacher_id, otherTeacherIds: other_teacher_ids };
    },
  })),
  "classes.addStudent": classStudentAimedAtA.map((kase) => ({
    ...kase,
    input: (aim: Aim) => {
      const { class_id, student_id } = kase.input(aim);
      return { classId: class_id, studentId: student_id };
    },
  })),
  "classes.removeStudent": [{ aim: "A's class and student", answer: everyRole(404), input: ({ a }) => ({ classId: a.classId, studentId: a.studentId }) }],
  // REST's twins of addStudent and setTeachers: the class in the path, the rest in the body.
  "classes.addStudentToClass": classStudentAimedAtA,
  "classes.setClassTeachers": classTeachersAimedAtA,
  "snapshots.syncToken": [
    { aim: "A's lesson in A's database", answer: 403, input: ({ a }) => ({ room: a.lessonPath, db_name: a.graphDb }) },
    { aim: "A's lesson named in B's own database", answer: "isolated", check: syncTokenOpensNoRoomOfA, input: ({ a, b }) => ({ room: a.lessonPath, db_name: b.graphDb }) },
    { aim: "A's teacher's canvas in A's teacher's database", answer: 403, input: ({ a }) => ({ room: a.teacherCanvasPath, db_name: a.teacherDb }) },
    {
      aim: "A's teacher's canvas named in B's own database",
      answer: "isolated",
      check: syncTokenOpensNoRoomOfA,
      input: ({ a, me }) => ({ room: a.teacherCanvasPath, db_name: me.user_db_name }),
    },
  ],
  // exam.markers, exam.claims, exam.moderation: another school's batch is not found by anyone of B's, before any role is asked.
  "exam.markers.list": [{ aim: "A's shared batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.markers.invite": [
    { aim: "A's batch, inviting the caller", answer: everyRole(404), input: ({ a, me }) => ({ batch_id: a.batchId, body: { user_id: me.id } }) },
    { aim: "A's batch, inviting A's teacher", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { user_id: a.teacherId } }) },
    { aim: "B's own batch, inviting A's marker", answer: ownerOnly(400), input: ({ a, b }) => ({ batch_id: b.batchId, body: { user_id: a.markerId } }) },
  ],
  "exam.markers.remove": [{ aim: "A's marker of A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, user_id: a.markerId }) }],
  "exam.markers.setAllocations": [
    {
      aim: "A's marker of A's batch",
      answer: everyRole(404),
      input: ({ a }) => ({ batch_id: a.batchId, user_id: a.markerId, body: { allocations: [{ question_id: a.questionId }] } }),
    },
    { aim: "B's own batch, A's marker", answer: ownerOnly(404), input: ({ a, b }) => ({ batch_id: b.batchId, user_id: a.markerId, body: { allocations: [{ first_script: 1 }] } }) },
  ],
  "exam.markers.myWork": [{ aim: "A's shared batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.markers.progress": [{ aim: "A's shared batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.claims.claim": [
    { aim: "A's batch, the next pair", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: {} }) },
    { aim: "A's claimed pair", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { submission_id: a.submissionId, question_id: a.questionId } }) },
  ],
  "exam.claims.release": [{ aim: "A's claimed pair", answer: 404, input: ({ a }) => ({ batch_id: a.batchId, body: { submission_id: a.submissionId, question_id: a.questionId } }) }],
  "exam.moderation.state": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.moderation.setSample": [
    { aim: "A's batch, a percentage", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { percent: 100, tolerance: 0 } }) },
    { aim: "A's batch, A's script", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { submission_ids: [a.submissionId] } }) },
  ],
  "exam.moderation.queue": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.moderation.saveSecondMark": [
    { aim: "A's script and question", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, body: { question_id: a.questionId, awarded_marks: 1 } }) },
  ],
  "exam.moderation.agreement": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.moderation.differences": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.moderation.reconcile": [
    { aim: "A's script and question", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, body: { question_id: a.questionId, final_marks: 1 } }) },
  ],
  "exam.moderation.signOff": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.moderation.reopen": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.reviews.queue": [{ aim: "A's batch", answer: "own", input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.reviews.answer": [{ aim: "A's review request", answer: everyRole(404), input: ({ a }) => ({ request_id: a.reviewRequestId, outcome: "kept", reply: "Taken over" }) }],
  "student.reviews.request": [
    { aim: "A's released script", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, question_id: a.questionId, reason: "Taken over" }) },
  ],
  "student.reviews.mine": [{ aim: "A's released script", answer: "own", input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.release.status": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.release.release": [
    { aim: "A's batch, every script", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, scope: "all" }) },
    { aim: "A's batch, complete ones, confirmed", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, scope: "complete", confirm_unmoderated: true }) },
  ],
  "exam.release.withdraw": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.catalogue.list": [{ aim: "the shared catalogue", answer: "own", input: () => undefined }],
  "exam.templates.create": [
    { aim: "institute_id of A", answer: 403, input: ({ a }) => ({ title: "Beta paper", institute_id: a.instituteId }) },
    { aim: "source_file_id of A's paper", answer: staffOnly(400), input: ({ a }) => ({ title: "Beta paper", source_file_id: a.fileId }) },
  ],
  "exam.templates.list": [
    { aim: "the list", answer: "own", input: () => ({ include_archived: true }) },
    { aim: "filtered by A's paper code", answer: "own", input: ({ a }) => ({ exam_code: a.paperKey, include_archived: true }) },
  ],
  // REST's list (GET /api/exam/templates): the query string's include_archived is a string.
  "exam.templates.listByQuery": [
    { aim: "the list", answer: "own", input: () => ({}) },
    { aim: "filtered by A's paper code", answer: "own", input: ({ a }) => ({ exam_code: a.paperKey, include_archived: "true" }) },
  ],
  "exam.templates.get": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }) }],
  "exam.templates.save": [
    { aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId, body: { title: "Taken over", status: "archived" } }) },
    {
      aim: "B's own template saved with A's question id",
      answer: ownerOnly(400),
      ghost: false,
      input: ({ a, b }) => ({ template_id: b.templateId, body: canvasTakingQuestionId(a.questionId) }),
    },
  ],
  "exam.templates.archive": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }) }],
  "exam.templates.graphStatus": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }) }],
  "exam.templates.retryGraph": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }) }],
  "exam.templates.propose": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }) }],
  "exam.templates.findTickBoxes": [
    { aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId, body: { page: 1, x: 0.1, y: 0.1, width: 0.5, height: 0.2 } }) },
  ],
  "exam.questions.editMarkScheme": [
    { aim: "A's question", answer: 404, input: ({ a }) => ({ question_id: a.questionId, body: { max_marks: 99, spec_ref: "taken" } }) },
  ],
  "exam.rubric.create": [{ aim: "A's question", answer: 404, input: ({ a }) => ({ question_id: a.questionId, body: { text: "Taken over", points: 1 } }) }],
  "exam.rubric.edit": [{ aim: "A's rubric item", answer: 404, input: ({ a }) => ({ item_id: a.rubricItemId, body: { points: -5, text: "Taken over" } }) }],
  "exam.rubric.delete": [{ aim: "A's rubric item", answer: 404, input: ({ a }) => ({ item_id: a.rubricItemId }) }],
  "exam.rubric.history": [{ aim: "A's question", answer: 404, input: ({ a }) => ({ question_id: a.questionId }) }],
  // A mark scheme read into a template's rubric, and a template copied from another (issue 37, items 3 and 4).
  "exam.rubric.readScheme": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId, text: "2 | M1 for 2x = 6" }) }],
  "exam.rubric.readSchemePdf": [{ aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId }), rest: () => paperUpload(pdfBytes()) }],
  "exam.rubric.applyScheme": [
    { aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId, body: { parts: [{ question_id: a.questionId, items: [{ text: "Taken over", points: 1 }] }] } }) },
    { aim: "B's template with A's question", answer: ownerOnly(404), input: ({ a, b }) => ({ template_id: b.templateId, body: { parts: [{ question_id: a.questionId, items: [{ text: "Taken over", points: 1 }] }] } }) },
  ],
  "exam.templates.previewCopy": [
    { aim: "A's template, from B's", answer: 404, input: ({ a, b }) => ({ template_id: a.templateId, source_template_id: b.templateId }) },
    { aim: "B's template, from A's", answer: 404, input: ({ a, b }) => ({ template_id: b.templateId, source_template_id: a.templateId }) },
  ],
  "exam.templates.copyFrom": [
    { aim: "A's template, from B's", answer: 404, input: ({ a, b }) => ({ template_id: a.templateId, source_template_id: b.templateId }) },
    { aim: "B's template, from A's", answer: 404, input: ({ a, b }) => ({ template_id: b.templateId, source_template_id: a.templateId }) },
  ],
  "exam.comments.forQuestion": [{ aim: "A's question", answer: 404, input: ({ a }) => ({ question_id: a.questionId }) }],
  "exam.comments.save": [{ aim: "A's question", answer: 404, input: ({ a }) => ({ question_id: a.questionId, body: { text: "Taken over" } }) }],
  "exam.comments.remove": [{ aim: "A's saved comment", answer: 404, input: ({ a }) => ({ comment_id: a.savedCommentId }) }],
  // The paper's upload: the PDF is the body, streamed.
  "exam.files.upload": [{ aim: "institute_id of A", answer: 403, input: ({ a }) => ({ institute_id: a.instituteId }), rest: () => paperUpload(pdfBytes()) }],
  "exam.files.download": [{ aim: "A's paper", answer: 404, input: ({ a }) => ({ file_id: a.fileId }) }],
  // exam.batches: another school's batch is not found by anyone of B's, before any role is asked.
  "exam.batches.create": [
    { aim: "A's template", answer: 404, input: ({ a }) => ({ template_id: a.templateId, title: "Beta batch" }) },
    { aim: "B's template with A's class", answer: 404, input: ({ a, b }) => ({ template_id: b.templateId, class_id: a.classId }) },
  ],
  "exam.batches.list": [
    { aim: "the list", answer: "own", input: () => ({ include_archived: true }) },
    { aim: "filtered by A's template", answer: "own", input: ({ a }) => ({ include_archived: true, template_id: a.templateId }) },
  ],
  // REST's list (GET /api/exam/batches): the query string's include_archived is a string.
  "exam.batches.listByQuery": [
    { aim: "the list", answer: "own", input: () => ({ include_archived: "true" }) },
    { aim: "filtered by A's template", answer: "own", input: ({ a }) => ({ include_archived: "true", template_id: a.templateId }) },
  ],
  "exam.batches.overview": [
    { aim: "the list", answer: "own", input: () => ({ include_archived: true }) },
    { aim: "filtered by A's template", answer: "own", input: ({ a }) => ({ include_archived: true, template_id: a.templateId }) },
  ],
  "exam.batches.setAnonymous": [
    { aim: "A's batch, anonymous on", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, anonymous: true }) },
    { aim: "A's batch, anonymous off", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, anonymous: false }) },
  ],
  "exam.batches.archive": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.batches.queue": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.batches.results": [
    { aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) },
    { aim: "A's batch, names revealed", answer: 404, input: ({ a }) => ({ batch_id: a.batchId, reveal_names: true }) },
  ],
  ...resultsReadsAimedAtA("resultsByQuery", "resultsCsv", "exportCsv", "exportXlsx"),
  // exam.submissions and exam.marks: another school's submission is not found by anyone of B's, before any role is asked.
  // A scan's upload: the PDF is the body, streamed. Another school's batch is not found by anyone of B's.
  "exam.submissions.uploadScan": [
    { aim: "A's batch, for A's student", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }), rest: ({ a }) => scanUpload(a.studentId) },
    { aim: "A's batch, ordered", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }), rest: () => scanUpload() },
    // No slot of A's student in B's batch: a new unmatched submission of B's, with no student.
    { aim: "B's own batch, for A's student", answer: ownerOnly("own"), input: ({ b }) => ({ batch_id: b.batchId }), rest: ({ a }) => scanUpload(a.studentId) },
  ],
  "exam.submissions.downloadScan": [{ aim: "A's scanned submission", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.submissions.assign": [
    { aim: "A's unmatched scan", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.unmatchedSubmissionId, student_id: a.studentId }) },
    {
      aim: "B's unmatched scan given to A's student",
      answer: { admin: 403, head: 403, teacher: 400, student: 404 },
      input: ({ a, b }) => ({ submission_id: b.unmatchedSubmissionId, student_id: a.studentId }),
    },
  ],
  "exam.submissions.setAbsence": [
    { aim: "A's submission marked absent", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, absent: true }) },
    { aim: "A's submission's absence undone", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, absent: false }) },
  ],
  "exam.submissions.markAbsent": [{ aim: "A's submission", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.submissions.undoAbsent": [{ aim: "A's submission", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId }) }],
  // exam.intake: another school's batch, page or submission is not found by anyone of B's, before any role is asked.
  // A pile's upload: the PDF is the body, streamed.
  "exam.intake.uploadPile": [
    { aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId }), rest: () => paperUpload(pdfBytes(), "pile.pdf") },
    { aim: "A's batch of printed scripts", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.intakeBatchId }), rest: () => paperUpload(pdfBytes(), "pile.pdf") },
  ],
  "exam.intake.printPreview": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.intake.status": [{ aim: "A's batch of printed scripts", answer: 404, input: ({ a }) => ({ batch_id: a.intakeBatchId }) }],
  "exam.intake.pages": [{ aim: "A's batch of printed scripts", answer: 404, input: ({ a }) => ({ batch_id: a.intakeBatchId }) }],
  "exam.intake.movePage": [
    { aim: "A's page, to a new script", answer: everyRole(404), input: ({ a }) => ({ page_id: a.scanPageId, new_script: true }) },
    { aim: "A's page, into B's submission", answer: everyRole(404), input: ({ a, b }) => ({ page_id: a.scanPageId, submission_id: b.submissionId }) },
  ],
  "exam.intake.nameCrop": [{ aim: "A's scanned submission", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.intake.scanPageImage": [{ aim: "A's scanned page", answer: 404, input: ({ a }) => ({ page_id: a.scanPageId }) }],
  "exam.intake.printScripts": [
    { aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { spare_copies: 1 } }) },
    { aim: "A's batch, reprinting A's student", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, body: { submission_ids: [a.submissionId] } }) },
  ],
  "exam.marks.forSubmission": [{ aim: "A's submission", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.marks.upsert": [
    {
      aim: "A's submission and question",
      answer: everyRole(404),
      input: ({ a }) => ({ mark_id: crypto.randomUUID(), body: { submission_id: a.submissionId, question_id: a.questionId, awarded_marks: 1 } }),
    },
    {
      aim: "A's mark id on A's submission",
      answer: everyRole(404),
      input: ({ a }) => ({ mark_id: a.markId, body: { submission_id: a.submissionId, question_id: a.questionId, awarded_marks: 0, comment: "taken" } }),
    },
    {
      aim: "B's own submission with A's question",
      answer: ownerOnly(404),
      input: ({ a, b }) => ({ mark_id: crypto.randomUUID(), body: { submission_id: b.submissionId, question_id: a.questionId, awarded_marks: 1 } }),
    },
    {
      aim: "B's own submission and question, applying A's rubric item",
      answer: ownerOnly(400),
      input: ({ a, b }) => ({
        mark_id: crypto.randomUUID(),
        body: { submission_id: b.submissionId, question_id: b.questionId, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [a.rubricItemId] } },
      }),
    },
    {
      aim: "A's mark id on B's own submission",
      answer: ownerOnly(409),
      ghost: false,
      input: ({ a, b }) => ({ mark_id: a.markId, body: { submission_id: b.submissionId, question_id: b.questionId, awarded_marks: 1 } }),
    },
  ],
  // A's scanned script is released to A's student: B's student (and anyone of B) still reads nothing of it.
  "student.scripts.list": [{ aim: "the caller's released scripts", answer: "own", input: () => undefined }],
  "student.scripts.get": [{ aim: "A's released script", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "student.scripts.scan": [{ aim: "A's released script's scan", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "student.scripts.pdf": [{ aim: "A's released script as a PDF", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  // exam.returns (files): another school's script or batch is not found by anyone of B's.
  "exam.returns.markedPdf": [{ aim: "A's scanned submission as a marked PDF", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.returns.markedZip": [{ aim: "A's batch's marked scripts", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.returns.feedbackSheets": [{ aim: "A's batch's feedback sheets", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  // exam.annotations: another school's script (and shape) is not found by anyone of B's, before any role is asked.
  "exam.annotations.list": [
    { aim: "A's script", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) },
    { aim: "A's script, the second marking's layer", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId, layer: "second_marking" }) },
  ],
  "exam.annotations.save": [
    { aim: "A's script", answer: everyRole(404), input: ({ a }) => ({ annotation_id: crypto.randomUUID(), body: tickOn(a.submissionId) }) },
    { aim: "A's shape on A's script", answer: everyRole(404), input: ({ a }) => ({ annotation_id: a.annotationId, body: { ...tickOn(a.submissionId), page: 2 } }) },
    // A's shape id is taken: B cannot store a shape under it (an id nobody holds would be saved).
    { aim: "A's shape id on B's own script", answer: ownerOnly(404), ghost: false, input: ({ a, b }) => ({ annotation_id: a.annotationId, body: tickOn(b.submissionId) }) },
    {
      aim: "B's own script, naming A's question",
      answer: ownerOnly(400),
      input: ({ a, b }) => ({ annotation_id: crypto.randomUUID(), body: { ...tickOn(b.submissionId), question_id: a.questionId } }),
    },
    {
      aim: "B's own script, stamping A's rubric item",
      answer: ownerOnly(400),
      input: ({ a, b }) => ({ annotation_id: crypto.randomUUID(), body: { ...tickOn(b.submissionId), kind: "stamp", rubric_item_id: a.rubricItemId } }),
    },
  ],
  "exam.annotations.remove": [{ aim: "A's shape", answer: everyRole(404), input: ({ a }) => ({ annotation_id: a.annotationId }) }],
  "exam.answers.forBatch": [{ aim: "A's batch", answer: 404, input: ({ a }) => ({ batch_id: a.batchId }) }],
  "exam.answers.forSubmission": [{ aim: "A's script", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId }) }],
  "exam.answers.setAnswer": [
    { aim: "A's batch, question and script", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, question_id: a.questionId, submission_ids: [a.submissionId], answer: ["A"] }) },
    { aim: "B's own batch and question, A's script", answer: ownerOnly(400), input: ({ a, b }) => ({ batch_id: b.batchId, question_id: b.questionId, submission_ids: [a.submissionId], answer: [] }) },
  ],
  "exam.answers.zeroBlanks": [{ aim: "A's batch and question", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, question_id: a.questionId }) }],
  "exam.answers.undoAutomaticMark": [{ aim: "A's script and question", answer: everyRole(404), input: ({ a }) => ({ submission_id: a.submissionId, question_id: a.questionId }) }],
  "exam.answers.setAutoZeroBlanks": [{ aim: "A's batch", answer: everyRole(404), input: ({ a }) => ({ batch_id: a.batchId, auto_zero_blanks: true }) }],
  "exam.answers.crop": [
    { aim: "A's script and area", answer: 404, input: ({ a }) => ({ submission_id: a.submissionId, response_area_id: a.responseAreaId }) },
    { aim: "B's own script, A's area", answer: 404, input: ({ a, b }) => ({ submission_id: b.submissionId, response_area_id: a.responseAreaId }) },
  ],
};

/** A tick on page 1 of a script. */
function tickOn(submissionId: string) {
  return { submission_id: submissionId, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } };
}

/**
 * The REST call of an operation's input: its path segments, then the query string (GET, DELETE, and
 * beside a streamed body) or the JSON body (or the body member); and what the case adds (`rest`).
 */
function restCallOf(operation: AnyOperation, input: Record<string, unknown> | undefined, extra: RouteCall = {}): RouteCall {
  const face = operation.rest!;
  const pathNames = pathParameterNames(face.path);
  const params = pathNames.map((name) => String(input?.[name]));
  const rest = Object.fromEntries(Object.entries(input ?? {}).filter(([name]) => !pathNames.includes(name)));
  const call: RouteCall =
    face.method === "GET" || face.method === "DELETE" || face.streamedBody
      ? { params, query: Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, String(value)])) }
      : face.bodyMember !== undefined
        ? { params, ...json(input?.[face.bodyMember]) }
        : Object.keys(rest).length > 0
          ? { params, ...json(rest) }
          : { params };
  return { ...call, ...extra, headers: { ...call.headers, ...extra.headers } };
}

/** The catalogue's cases as the REST and tRPC tables' (filled in below, beside the hand-written entries). */
function operationCases<Call>(operation: AnyOperation, cases: OperationCase[], call: (input: Record<string, unknown> | undefined, extra: RouteCall | undefined) => Call): Case<Call>[] {
  return cases.map((kase) => ({
    aim: kase.aim,
    answer:
      typeof kase.answer === "object"
        ? kase.answer
        : Object.fromEntries(roles.map((role) => [role, rolesHolding[operation.role].includes(role) ? kase.answer : 403])),
    build: (aim: Aim) => call(kase.input(aim), kase.rest?.(aim)),
    ...(kase.ghost === false ? { ghost: false as const } : {}),
    ...(kase.check ? { check: kase.check } : {}),
  }));
}

// ── The tRPC table: procedure path → how B aims at A, and what it must answer ────────────────────

// Every procedure is an operation of the catalogue now: its cases are filled in from operationMatrix below.
const trpcMatrix: Record<string, Case<unknown>[]> = {};

for (const { name, operation } of listedOperations) {
  const cases = operationMatrix[name];
  if (!cases) continue; // the table check below names it
  if (operation.rest) restMatrix[`${operation.rest.method} ${operation.rest.path}`] = operationCases(operation, cases, (input, extra) => restCallOf(operation, input, extra));
  if (operation.trpc !== false) trpcMatrix[name] = operationCases(operation, cases, (input) => input);
}

// ── Running a case ──────────────────────────────────────────────────────────────────────────────

interface Reply {
  status: number;
  /** The refusal's message (`detail`, or the tRPC message), null for a success. */
  message: string | null;
  /** Everything the caller got back, as text. */
  text: string;
  data: unknown;
}

const statusOfTrpcCode = new Map<string, number>(Object.values(errorCodes).map((code) => [code.trpc, code.status]));

async function restReply(route: RestRoute, method: HttpMethod, call: RouteCall, token: string): Promise<Reply> {
  const response = await callRoute(route, method, { ...call, headers: { ...call.headers, authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.ok) {
    let data: unknown = text;
    try {
      data = JSON.parse(text);
    } catch {
      // a CSV or a PDF: its text is what is checked
    }
    return { status: response.status, message: null, text, data };
  }
  let detail: unknown;
  try {
    detail = (JSON.parse(text) as { detail?: unknown }).detail;
  } catch {
    detail = undefined;
  }
  expect.soft(typeof detail, `${method} ${route.openApiPath} answers ${response.status} with a {detail} body: ${text.slice(0, 200)}`).toBe("string");
  return { status: response.status, message: typeof detail === "string" ? detail : text, text, data: undefined };
}

async function trpcReply(db: Db, path: string, input: unknown, user: Person): Promise<Reply> {
  const caller = createCaller({ db, user: { id: user.id } });
  const procedure = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (input: unknown) => Promise<unknown>;
  try {
    const data = await procedure(input);
    return { status: 200, message: null, text: JSON.stringify(data) ?? "", data };
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return { status: statusOfTrpcCode.get(code ?? "") ?? 500, message: message ?? String(error), text: message ?? String(error), data: undefined };
  }
}

/** Every tRPC procedure by its path ("exam.templates.get"): at run time tRPC v11 keeps them in one flat record. */
const trpcProcedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation" | "subscription" } }>;

/** Every REST route and method on disk, as "METHOD /openapi/path": one test each. */
const restRouteKeys = (await loadRestRoutes()).flatMap((route) => route.methods.map((method) => `${method} ${route.openApiPath}`));

describe("the cross-school matrix's tables", () => {
  it("have an entry for every REST route and method, and none for a route that is gone", () => {
    const tabled = Object.keys(restMatrix);
    expect(restRouteKeys.filter((key) => !tabled.includes(key)), "routes without a matrix entry (say how each must answer)").toEqual([]);
    expect(tabled.filter((key) => !restRouteKeys.includes(key)), "matrix entries for routes that no longer exist").toEqual([]);
  });

  it("have an entry for every operation of the catalogue, and none for an operation that is gone", () => {
    const listed = listedOperations.map(({ name }) => name);
    const tabled = Object.keys(operationMatrix);
    expect(listed.filter((key) => !tabled.includes(key)), "operations without a matrix entry (say how each must answer)").toEqual([]);
    expect(tabled.filter((key) => !listed.includes(key)), "matrix entries for operations that no longer exist").toEqual([]);
  });

  it("have an entry for every tRPC procedure, and none for a procedure that is gone", () => {
    const listed = Object.keys(trpcProcedures);
    const tabled = Object.keys(trpcMatrix);
    expect(listed.filter((key) => !tabled.includes(key)), "procedures without a matrix entry (say how each must answer)").toEqual([]);
    expect(tabled.filter((key) => !listed.includes(key)), "matrix entries for procedures that no longer exist").toEqual([]);
  });
});

describeOnEachDatabase("cross-school matrix", (database) => {
  let schoolA: School;
  let schoolB: School;
  let target: Target;
  let ghost: Target;
  let own: Own;
  /** Everything of A's that B must never be told: ids, names, titles, the canvas marker. */
  let secrets: string[];
  let routes: Map<string, { route: RestRoute; method: HttpMethod }>;
  let fileRoute: RestRoute;
  /** The text inside A's stored canvases. */
  let marker: string;
  let storeCanvasesOfA: () => Promise<void>;

  const as = (person: Person) => createCaller({ db: database().db, user: { id: person.id } });
  const personOf = (role: Role): Person => schoolB[role];

  beforeAll(async () => {
    const db = database().db;
    const tag = crypto.randomBytes(4).toString("hex");
    routes = new Map();
    for (const route of await loadRestRoutes()) {
      for (const method of route.methods) routes.set(`${method} ${route.openApiPath}`, { route, method });
    }
    fileRoute = routes.get("GET /api/exam/files/{file_id}")!.route;
    const post = (key: string, token: string, call: RouteCall) => {
      const { route, method } = routes.get(key)!;
      return callRoute(route, method, { ...call, headers: { ...call.headers, authorization: `Bearer ${token}` } });
    };

    schoolA = await createSchool(db, "Alpha");
    schoolB = await createSchool(db, "Beta");
    const { teacher, admin } = schoolA;

    // School A holds one of everything.
    const pdf = await PDFDocument.create();
    for (let page = 0; page < 3; page++) pdf.addPage([595, 842]);
    const uploaded = await post("POST /api/exam/files", teacher.token, paperUpload(await pdf.save(), `alpha-paper-${tag}.pdf`));
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string };
    const cataloguePaper = await createCataloguePaper(db);
    const template = await as(teacher).exam.templates.create({ title: `Alpha paper ${tag}`, page_count: 3, source_file_id: file.id, exam_id: cataloguePaper.id });
    const canvas = sampleCanvas();
    await as(teacher).exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
    await as(teacher).graph.syncTemplate({ templateId: template.id });
    const roster = await createClassWithStudents(db, schoolA, 2);
    const batch = await as(teacher).exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: `Alpha batch ${tag}` });
    const matched = await post("POST /api/exam/batches/{batch_id}/scans", teacher.token, { params: [batch.id], ...scanUpload(roster.students[0]!.id) });
    expect(matched.status).toBe(200);
    const unmatched = await post("POST /api/exam/batches/{batch_id}/scans", teacher.token, { params: [batch.id], ...scanUpload() });
    expect(unmatched.status).toBe(201);
    const submissionId = ((await matched.json()) as { id: string }).id;
    const rubricItem = await as(teacher).exam.rubric.create({ question_id: canvas.ids.q2, body: { text: `alpha-rubric-${tag}`, points: 2, comment: `alpha-rubric-comment-${tag}` } });
    const savedComment = await as(teacher).exam.comments.save({ question_id: canvas.ids.q2, body: { text: `alpha-saved-comment-${tag}` } });
    const mark = await as(teacher).exam.marks.upsert({
      mark_id: crypto.randomUUID(),
      body: { submission_id: submissionId, question_id: canvas.ids.q2, awarded_marks: 4, comment: `alpha-comment-${tag}` },
    });
    const annotation = await as(teacher).exam.annotations.save({
      annotation_id: crypto.randomUUID(),
      body: { submission_id: submissionId, kind: "text", page: 1, geometry: { x: 0.4, y: 0.6 }, text: `alpha-annotation-${tag}`, question_id: canvas.ids.q2 },
    });
    // Shared marking: A's colleague marks question 2 of A's batch and holds a claim on the scanned script's.
    await as(teacher).exam.markers.invite({ batch_id: batch.id, body: { user_id: schoolA.otherTeacher.id } });
    await as(teacher).exam.markers.setAllocations({ batch_id: batch.id, user_id: schoolA.otherTeacher.id, body: { allocations: [{ question_id: canvas.ids.q2 }] } });
    await as(schoolA.otherTeacher).exam.claims.claim({ batch_id: batch.id, body: { submission_id: submissionId, question_id: canvas.ids.q2 } });
    // A's results released to its students with reviews open, and A's student asking about question 2.
    await releaseForTest(db, batch.id, { reviewsUntil: new Date(Date.now() + 86_400_000) });
    const reviewRequest = await createCaller({ db, user: { id: roster.students[0]!.id } }).student.reviews.request({ submission_id: submissionId, question_id: canvas.ids.q2, reason: `alpha-review-${tag}` });
    // A pile of printed scripts, read and filed (its imaging a stand-in: tests/support/intake-imaging-double.ts).
    const imaging = setIntakeImaging(imagingDouble());
    const printed = await printedBatch(db, schoolA, template.id, { students: 1, spares: 0 });
    const pileUpload = paperUpload(await testPile([{ label: "p1", code: printed.code(1, 1) }]), `alpha-pile-${tag}.pdf`);
    const pileReply = await post("POST /api/exam/batches/{batch_id}/piles", teacher.token, { params: [printed.batch.id], ...pileUpload });
    expect(pileReply.status).toBe(202);
    const pile = (await pileReply.json()) as { id: string };
    await processScanPile(db, pile.id, imaging);
    const [scanPage] = await pagesOfPile(db, pile.id);
    const timetable = await as(admin).timetables.create({ name: `Alpha timetable ${tag}`, type: "class", class_id: roster.class.id });
    const timetableEntry = await as(admin).timetables.createEntry({
      timetable_id: timetable.id,
      day: 1,
      period: 1,
      start_time: "09:00",
      end_time: "10:00",
      room: `Alpha room ${tag}`,
      class_id: roster.class.id,
      teacher_id: teacher.id,
    });
    const lessonPath = `${bucket()}/Lesson/lesson-${crypto.randomBytes(8).toString("hex")}`;
    const teacherCanvasPath = `${bucket()}/Teacher/${teacher.id}`;
    marker = `alpha-canvas-${tag}`;
    storeCanvasesOfA = async () => {
      await as(teacher).snapshots.put({ path: lessonPath, db_name: schoolA.institute.graph_db_name, snapshot: canvasWith(marker) });
      await as(teacher).snapshots.put({ path: teacherCanvasPath, db_name: teacher.user_db_name, snapshot: canvasWith(marker) });
    };
    await storeCanvasesOfA();
    roomsOfA = [
      { room: (await as(teacher).snapshots.syncToken({ room: lessonPath, db_name: schoolA.institute.graph_db_name })).room, db_name: schoolA.institute.graph_db_name },
      { room: (await as(teacher).snapshots.syncToken({ room: teacherCanvasPath, db_name: teacher.user_db_name })).room, db_name: teacher.user_db_name },
    ];
    const apiKey = await as(admin).speech.apiKeys.create({ name: `alpha-key-${tag}` });
    const token = await as(teacher).tokens.create({ name: `alpha-token-${tag}`, ttlDays: 1 });

    target = {
      instituteId: schoolA.institute.id,
      graphDb: schoolA.institute.graph_db_name,
      curriculumDb: schoolA.institute.curriculum_db_name,
      teacherId: teacher.id,
      teacherDb: teacher.user_db_name,
      templateId: template.id,
      questionId: canvas.ids.q2,
      responseAreaId: canvas.response_areas.find((area) => area.question_id === canvas.ids.q2)!.id,
      rubricItemId: rubricItem.id,
      savedCommentId: savedComment.id,
      fileId: file.id,
      classId: roster.class.id,
      studentId: roster.students[0]!.id,
      batchId: batch.id,
      submissionId,
      unmatchedSubmissionId: ((await unmatched.json()) as { id: string }).id,
      markerId: schoolA.otherTeacher.id,
      intakeBatchId: printed.batch.id,
      scanPageId: scanPage!.id,
      markId: mark.id,
      reviewRequestId: reviewRequest.id,
      annotationId: annotation.id,
      timetableId: timetable.id,
      entryId: timetableEntry.id,
      apiKeyId: apiKey.id,
      tokenId: token.id,
      lessonPath,
      teacherCanvasPath,
      paperKey: cataloguePaper.exam_code,
    };
    // Each id with every run of hex digits replaced: the same shape, existing nowhere.
    const ghostOf = (value: string) => value.replace(/[0-9a-f]{8,}/gi, (run) => crypto.randomBytes(run.length).toString("hex").slice(0, run.length));
    ghost = Object.fromEntries(Object.entries(target).map(([name, value]) => [name, ghostOf(value)])) as unknown as Target;

    const people = [schoolA.admin, schoolA.head, schoolA.teacher, schoolA.otherTeacher, schoolA.student, schoolA.otherStudent, ...roster.students];
    secrets = [
      // The catalogue code is public (every school may set the same paper); the rest is A's alone.
      ...Object.values({ ...target, paperKey: undefined }).filter((value) => value !== undefined),
      schoolA.institute.name,
      ...people.flatMap((person) => [person.id, person.email, person.full_name, person.user_db_name, person.username]),
      ...canvas.questions.map((question) => question.id),
      ...canvas.response_areas.map((area) => area.id),
      rubricItem.text,
      rubricItem.comment!,
      savedComment.text,
      ...canvas.boundaries.map((boundary) => boundary.id),
      roster.class.name,
      template.title,
      batch.title,
      timetable.name,
      timetableEntry.room!,
      `alpha-paper-${tag}`,
      `alpha-pile-${tag}`,
      ...printed.roster.students.flatMap((person) => [person.id, person.email, person.full_name]),
      mark.comment!,
      reviewRequest.reason,
      annotation.text!,
      apiKey.name,
      apiKey.prefix,
      token.name,
      marker,
    ].map((secret) => secret.toLowerCase());

    // School B has a little of its own, to point from it at A's things.
    const ownCanvas = sampleCanvas();
    const ownTemplate = await as(schoolB.teacher).exam.templates.create({ title: "Beta paper", page_count: 3 });
    await as(schoolB.teacher).exam.templates.save({ template_id: ownTemplate.id, body: { ...ownCanvas, status: "ready" } });
    const samePaper = await as(schoolB.teacher).exam.templates.create({ title: "Beta mock", page_count: 3, exam_id: cataloguePaper.id });
    await as(schoolB.teacher).exam.templates.save({ template_id: samePaper.id, body: { ...sampleCanvas(), status: "ready" } });
    const ownRoster = await createClassWithStudents(db, schoolB, 1);
    const ownBatch = await as(schoolB.teacher).exam.batches.create({ template_id: ownTemplate.id, class_id: ownRoster.class.id });
    const ownQueue = await as(schoolB.teacher).exam.batches.queue({ batch_id: ownBatch.id });
    const ownUnmatched = await post("POST /api/exam/batches/{batch_id}/scans", schoolB.teacher.token, { params: [ownBatch.id], ...scanUpload() });
    expect(ownUnmatched.status).toBe(201);
    const ownTimetable = await as(schoolB.admin).timetables.create({ name: "Beta timetable" });
    own = {
      samePaperTemplateId: samePaper.id,
      batchId: ownBatch.id,
      templateId: ownTemplate.id,
      questionId: ownCanvas.ids.q2,
      classId: ownRoster.class.id,
      submissionId: ownQueue.submissions[0]!.id,
      unmatchedSubmissionId: ((await ownUnmatched.json()) as { id: string }).id,
      timetableId: ownTimetable.id,
      graphDb: schoolB.institute.graph_db_name,
      curriculumDb: schoolB.institute.curriculum_db_name,
    };
    await runDueJobs(database().db, { kinds: allJobKinds });
    const etagOf = async (key: string, person: Person, call: RouteCall) => {
      const { route, method } = routes.get(key)!;
      const response = await callRoute(route, method, { ...call, headers: { authorization: `Bearer ${person.token}` } });
      expect(response.status, key).toBe(200);
      return response.headers.get("etag")!;
    };
    etagsOfA.classStudents = await etagOf("GET /database/timetable/classes/{class_id}/students", admin, { params: [target.classId] });
    etagsOfA.paperChildren = await etagOf("GET /graph/node/children", teacher, {
      query: { neo4j_node_id: target.paperKey, neo4j_db_name: target.curriculumDb },
    });
    etagsOfA.classes = await etagOf("GET /database/timetable/classes", admin, {});
    etagsOfA.schoolStudents = await etagOf("GET /database/timetable/classes/school/students", admin, {});
    baseline = await fingerprintOfA();
  }, 120_000);

  /** A's data as A reads it, through the same procedures A's users use. */
  async function fingerprintOfA(): Promise<string> {
    const teacher = as(schoolA.teacher);
    const admin = as(schoolA.admin);
    const file = await callRoute(fileRoute, "GET", { params: [target.fileId], headers: { authorization: `Bearer ${schoolA.teacher.token}` } });
    return JSON.stringify({
      template: await teacher.exam.templates.get({ template_id: target.templateId }),
      comments: await teacher.exam.comments.forQuestion({ question_id: target.questionId }),
      rubricHistory: await teacher.exam.rubric.history({ question_id: target.questionId }),
      graphStatus: await teacher.exam.templates.graphStatus({ template_id: target.templateId }),
      queue: await teacher.exam.batches.queue({ batch_id: target.batchId }),
      markers: await teacher.exam.markers.list({ batch_id: target.batchId }),
      markerProgress: await teacher.exam.markers.progress({ batch_id: target.batchId }),
      markerWork: await as(schoolA.otherTeacher).exam.markers.myWork({ batch_id: target.batchId }),
      results: await teacher.exam.batches.results({ batch_id: target.batchId }),
      moderation: await teacher.exam.moderation.state({ batch_id: target.batchId }),
      release: await teacher.exam.release.status({ batch_id: target.batchId }),
      marks: await teacher.exam.marks.forSubmission({ submission_id: target.submissionId }),
      annotations: await teacher.exam.annotations.list({ submission_id: target.submissionId }),
      scanPages: await teacher.exam.intake.pages({ batch_id: target.intakeBatchId }),
      file: `${file.status} ${crypto.createHash("sha256").update(Buffer.from(await file.arrayBuffer())).digest("hex")}`,
      classes: await admin.classes.list(),
      teacherAsPerson: await admin.people.get({ user_id: target.teacherId }),
      // Whether A's student has a password (a sign-in slip would give them one).
      studentAsPerson: await admin.people.get({ user_id: target.studentId }),
      students: await admin.classes.students({ classId: target.classId, includeInactive: true }),
      timetable: await admin.timetables.get({ id: target.timetableId }),
      apiKey: (await admin.speech.apiKeys.list()).filter((key) => key.id === target.apiKeyId),
      tokens: await teacher.tokens.list(),
      lesson: await teacher.snapshots.get({ path: target.lessonPath, db_name: target.graphDb }),
      personalCanvas: await teacher.snapshots.get({ path: target.teacherCanvasPath, db_name: target.teacherDb }),
      paper: await teacher.graph.children({ neo4j_node_id: target.paperKey, neo4j_db_name: target.curriculumDb }),
    });
  }
  let baseline: string;

  /** Things of A's in `text` that the caller did not send themselves (repeating what one sent tells nothing). */
  const leaksIn = (text: string, sent: string) => {
    const reply = text.toLowerCase();
    const request = sent.toLowerCase();
    return secrets.filter((secret) => reply.includes(secret) && !request.includes(secret));
  };

  /** The reply with A's ids (and their ghosts) replaced by their names, to compare the two. */
  const normalized = (reply: Reply) => {
    let message = reply.message ?? reply.text;
    for (const [name, value] of Object.entries(target)) message = message.replaceAll(value, `<${name}>`);
    for (const [name, value] of Object.entries(ghost)) message = message.replaceAll(value, `<${name}>`);
    return { status: reply.status, message };
  };

  const answerFor = (kase: Case<unknown>, role: Role): Answer | undefined =>
    typeof kase.answer === "object" ? kase.answer[role] : kase.answer;

  async function runCase<Call>(
    label: string,
    kase: Case<Call>,
    isWrite: boolean,
    send: (call: Call, person: Person) => Promise<Reply>,
    sentText: (call: Call) => string,
  ) {
    for (const role of roles) {
      const answer = answerFor(kase, role);
      if (answer === undefined) continue;
      const me = personOf(role);
      const where = `${label} — ${kase.aim}, as B's ${role}`;
      const call = kase.build({ a: target, me, b: own });
      const reply = await send(call, me);
      expect.soft(reply.status, `${where}: never a 5xx (${reply.text.slice(0, 200)})`).toBeLessThan(500);
      expect.soft(leaksIn(reply.text, sentText(call)), `${where}: the reply names A's things`).toEqual([]);
      if (typeof answer === "number") {
        expect.soft(reply.status, `${where}: ${reply.text.slice(0, 200)}`).toBe(answer);
        if (kase.ghost !== false) {
          // The same answer as for ids that exist nowhere: nothing is learnt about A.
          const ghostReply = await send(kase.build({ a: ghost, me, b: own }), me);
          expect.soft(normalized(reply), `${where}: answers as for ids that do not exist`).toEqual(normalized(ghostReply));
        }
      } else if (answer === "own") {
        expect.soft([200, 201], `${where}: succeeds with the caller's own data (${reply.text.slice(0, 200)})`).toContain(reply.status);
      } else {
        expect.soft([200, 201, 403, 404], `${where}: refused, or answered from B's own database (${reply.text.slice(0, 200)})`).toContain(reply.status);
        if (reply.status < 300) await kase.check?.(reply.data);
      }
    }
    // Once per case, after all of B's roles made the call (reading A's data back per call cost four times as much).
    if (isWrite) {
      const now = await fingerprintOfA();
      expect.soft(now, `${label} — ${kase.aim}, as B's ${roles.filter((role) => answerFor(kase as Case<unknown>, role)).join(", ")}: A's data changed`).toBe(baseline);
      if (now !== baseline) {
        // Put A's canvases back (the writes most likely to get through), so later cases still test reads of them.
        await storeCanvasesOfA();
        baseline = await fingerprintOfA();
      }
    }
  }

  for (const key of restRouteKeys) {
    it(`REST ${key}`, { timeout: 300_000 }, async () => {
      const cases = restMatrix[key];
      expect(cases, `no matrix entry for ${key}: add one saying how it must answer another school`).toBeDefined();
      const { route, method } = routes.get(key)!;
      for (const kase of cases!) {
        await runCase(
          key,
          kase,
          method !== "GET",
          (call, person) => restReply(route, method, call, person.token),
          (call) => JSON.stringify([call.params, call.query]) + (call.body instanceof Uint8Array ? Buffer.from(call.body).toString("latin1") : typeof call.body === "string" ? call.body : ""),
        );
      }
    });
  }

  for (const [path, procedure] of Object.entries(trpcProcedures)) {
    it(`tRPC ${path}`, { timeout: 300_000 }, async () => {
      const cases = trpcMatrix[path];
      expect(cases, `no matrix entry for ${path}: add one saying how it must answer another school`).toBeDefined();
      for (const kase of cases!) {
        await runCase(
          path,
          kase,
          procedure._def.type === "mutation",
          (input, person) => trpcReply(database().db, path, input, person),
          (input) => JSON.stringify(input) ?? "",
        );
      }
    });
  }
});
