import fs from "node:fs";
import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { emptyCanvasSnapshot } from "../server/classroom/canvas-snapshot-content";
import { DATABASE_REFUSED_VALUE } from "../server/errors";
import { LONE_SURROGATE } from "../lib/rules/input-rules";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { processScanPile } from "../server/exam/intake/pile-job";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken, hostileString, hostileWholeBody, wrongContentType } from "./support/hostile-input";
import { duplicatedUsers, manyEntries, nestedBomb, zeroBomb } from "./support/hostile-zips";
import { imagingDouble, testPile } from "./support/intake-imaging-double";
import { pagesOfPile, printedBatch } from "./support/intake-fixtures";
import { type HttpMethod, type RestRoute, callRoute, loadRestRoutes } from "./support/rest-routes";

/**
 * Hostile input on every REST operation of /api/openapi.json (issue 14): for each generated case the
 * status is never 5xx, a refusal has the `{detail}` shape, and a refused write leaves what a read shows
 * unchanged. Seeded: FUZZ_SEED reruns a failing run, FUZZ_CASES asks for more cases.
 */

// A data folder of this file's own (snapshots, scans, papers), set before anything reads the configuration.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-fuzz-rest-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  return directory;
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const { seed, cases } = fuzzSettings(300);
const SNAPSHOT_BUCKET = "cc.public.snapshots";

interface Operation {
  route: RestRoute;
  method: HttpMethod;
  /** `METHOD /openapi/path`, the name used in failure reports. */
  name: string;
}

interface Fixture {
  school: School;
  /** A valid value for each path parameter name. */
  pathValues: Record<string, string>;
  /** A valid request per operation that has a body or required query parameters. */
  valid: Record<string, { token?: string; query?: Record<string, string>; json?: unknown; form?: FormField[]; zip?: Uint8Array<ArrayBuffer> }>;
}

type FormField = { name: string; value: string } | { name: string; filename: string; contentType?: string; bytes: Uint8Array };

/** A generated case: which operation, which part of the request to spoil, and the hostile material. */
const caseArbitrary = fc.record({
  operation: fc.nat(),
  target: fc.nat(),
  pick: fc.nat(),
  token: hostileJsonToken,
  text: hostileString,
  whole: hostileWholeBody,
  contentType: wrongContentType,
  extraName: fc.constantFrom("__proto__", "constructor", "prototype", "extra", "id", "owner_id", "institute_id"),
  etag: fc.constantFrom('"', "*", 'W/"x"', ",,,", "x".repeat(10_000), `"${"a".repeat(100_000)}"`, '"abc", W/"def", *'),
});
type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

type Call = Parameters<typeof callRoute>[2] & { token: string };

const MARKER = "@@hostile@@";

/** Every path to a value inside `value` (objects and arrays, not the root), as key lists. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== "object") return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  return entries.flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
}

const shapeOf = (path: (string | number)[]) => path.map((key) => (typeof key === "number" ? "*" : key)).join(".");

/** `body` as JSON text with the value at `path` replaced by the raw JSON `token` (which may be invalid JSON on purpose). */
function withTokenAt(body: unknown, path: (string | number)[], token: string): string {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path.at(-1)!] = MARKER;
  return JSON.stringify(copy).replace(JSON.stringify(MARKER), () => token);
}

/** Lone surrogates cannot travel in a URL (it is UTF-8); everything else can. */
const urlSafe = (text: string) => text.replace(new RegExp(LONE_SURROGATE, "g"), "\ufffd");

/** Spoils one part of an otherwise valid request to `operation`; returns the call and a short description. */
function hostileCall(operation: Operation, fixture: Fixture, hostile: Case): { call: Call; what: string } {
  const { route, method, name } = operation;
  const valid = fixture.valid[name] ?? {};
  const token = valid.token ?? fixture.school.teacher.token;
  const params = route.paramNames.map((param) => fixture.pathValues[param]!);
  const query: [string, string][] = Object.entries(valid.query ?? {});
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: BodyInit | undefined;
  if (valid.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(valid.json);
  }
  if (valid.form) {
    const form = multipartBody(valid.form);
    headers["content-type"] = form.contentType;
    body = form.body;
  }
  if (valid.zip) {
    headers["content-type"] = "application/zip";
    body = valid.zip;
  }

  // Archiving and deleting with a valid id would end the fixture's life: these always get a hostile id.
  const destructive = method === "DELETE" || route.folder.endsWith("/archive");
  if (destructive && params.length > 0) params[hostile.pick % params.length] = urlSafe(hostile.text);

  const documentedQuery = (route.operations[method]?.parameters ?? []).filter((parameter) => parameter.in === "query").map((p) => p.name);
  const targets: string[] = ["query", "duplicate query"];
  if (params.length > 0) targets.push("path");
  if ((route.operations[method]?.parameters ?? []).some((parameter) => parameter.name === "If-None-Match")) targets.push("if-none-match");
  if (valid.json !== undefined) targets.push("field", "field", "field", "duplicate key", "extra key", "missing key", "whole body", "whole body", "content type");
  if (valid.form) targets.push("form field", "filename", "part type", "missing file", "whole body", "content type");
  if (valid.zip) targets.push("zip", "zip", "zip", "whole body", "content type");
  const target = targets[hostile.target % targets.length]!;
  const what = (detail: string) => `${name} ${target}: ${detail.length > 160 ? `${detail.slice(0, 160)}… (${detail.length} chars)` : detail}`;
  let description = "";

  switch (target) {
    case "path": {
      const index = hostile.pick % params.length;
      params[index] = urlSafe(hostile.text);
      description = `${route.paramNames[index]}=${JSON.stringify(params[index])}`;
      break;
    }
    case "query":
    case "duplicate query": {
      const names = [...documentedQuery, "unexpected"];
      const param = names[hostile.pick % names.length]!;
      const value = urlSafe(hostile.text);
      if (target === "query") {
        const index = query.findIndex(([existing]) => existing === param);
        if (index >= 0) query.splice(index, 1);
      }
      query.push([param, value]);
      description = `${param}=${JSON.stringify(value)}`;
      break;
    }
    case "if-none-match":
      headers["if-none-match"] = hostile.etag;
      description = JSON.stringify(hostile.etag);
      break;
    case "field": {
      // A field name first (array positions aside), then one of its places: each field is tried as
      // often as any other, however many times it occurs in the body.
      const paths = pathsOf(valid.json);
      const shapes = [...new Set(paths.map(shapeOf))];
      const shape = shapes[hostile.pick % shapes.length]!;
      const places = paths.filter((path) => shapeOf(path) === shape);
      const path = places[Math.floor(hostile.pick / shapes.length) % places.length]!;
      body = withTokenAt(valid.json, path, hostile.token);
      description = `${path.join(".")} = ${hostile.token}`;
      break;
    }
    case "duplicate key": {
      const keys = Object.keys(valid.json as object);
      const key = keys[hostile.pick % keys.length]!;
      const text = JSON.stringify(valid.json);
      const pair = `${JSON.stringify(key)}:${hostile.token}`;
      // Hostile first (a last-wins parser keeps the valid one) or last (it keeps the hostile one).
      body = hostile.pick % 2 === 0 ? `{${pair},${text.slice(1)}` : `${text.slice(0, -1)},${pair}}`;
      description = `${key} twice, once as ${hostile.token}`;
      break;
    }
    case "extra key":
      body = `${JSON.stringify(valid.json).slice(0, -1)},${JSON.stringify(hostile.extraName)}:${hostile.token}}`;
      description = `${hostile.extraName} = ${hostile.token}`;
      break;
    case "missing key": {
      const keys = Object.keys(valid.json as object);
      const key = keys[hostile.pick % keys.length]!;
      const { [key]: _removed, ...rest } = valid.json as Record<string, unknown>;
      body = JSON.stringify(rest);
      description = key;
      break;
    }
    case "whole body":
      body = hostile.whole;
      description = hostile.whole;
      break;
    case "content type":
      if (hostile.contentType) headers["content-type"] = hostile.contentType;
      else delete headers["content-type"];
      description = JSON.stringify(hostile.contentType);
      break;
    case "zip": {
      // A hostile zip (tests/support/hostile-zips.ts), or the valid one with bytes overwritten.
      const hostileZips = [() => zeroBomb(0.1), nestedBomb, duplicatedUsers, () => manyEntries(1_005)];
      const pick = hostile.pick % (hostileZips.length + 1);
      if (pick < hostileZips.length) {
        body = hostileZips[pick]!();
        description = ["a 100 MB bomb declaring 200 bytes", "a zip in users.csv", "users.csv twice", "1,006 entries"][pick]!;
      } else {
        const spoiled = valid.zip!.slice();
        const at = Math.floor(hostile.pick / (hostileZips.length + 1)) % spoiled.length;
        spoiled[at] = hostile.text.charCodeAt(0) & 0xff;
        body = spoiled;
        description = `byte ${at} = ${spoiled[at]}`;
      }
      break;
    }
    case "form field":
    case "filename":
    case "part type":
    case "missing file": {
      const form = valid.form!.map((field) => ({ ...field }));
      const fileIndex = form.findIndex((field) => "filename" in field);
      if (target === "form field") {
        const names = [...form.filter((field) => "value" in field).map((field) => field.name), "unexpected"];
        const fieldName = names[hostile.pick % names.length]!;
        const existing = form.find((field) => field.name === fieldName && "value" in field) as { value: string } | undefined;
        if (existing && hostile.pick % 3 !== 0) existing.value = hostile.text;
        else form.unshift({ name: fieldName, value: hostile.text });
        description = `${fieldName}=${JSON.stringify(hostile.text)}`;
      } else if (target === "filename") {
        (form[fileIndex] as { filename: string }).filename = hostile.text;
        description = JSON.stringify(hostile.text);
      } else if (target === "part type") {
        (form[fileIndex] as { contentType?: string }).contentType = hostile.text.replace(/[\r\n]/g, "");
        description = JSON.stringify(hostile.text);
      } else {
        form.splice(fileIndex, 1);
        description = "no file part";
      }
      const encoded = multipartBody(form);
      headers["content-type"] = encoded.contentType;
      body = encoded.body;
      break;
    }
  }
  if (body !== undefined && method === "GET") body = undefined;
  return { call: { params, query: new URLSearchParams(query), headers, body, token }, what: what(description) };
}

describeOnEachDatabase("hostile input on every REST operation", (database) => {
  let fixture: Fixture;
  let operations: Operation[];

  const jsonCall = async (folder: string, method: HttpMethod, token: string, body: unknown, params: string[] = []) => {
    const route = operations.find((operation) => operation.route.folder === folder && operation.method === method)!.route;
    const response = await callRoute(route, method, {
      params,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${folder} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };

  beforeAll(async () => {
    operations = (await loadRestRoutes()).flatMap((route) =>
      route.methods.map((method) => ({ route, method, name: `${method} ${route.openApiPath}` })),
    );
    const db = database().db;
    const school = await createSchool(db, "Fuzz");
    const teacher = school.teacher.token;
    const roster = await createClassWithStudents(db, school, 2);

    // Template A (marked; its second question has no max_marks) and template B (never marked, no
    // page count), so that canvas and mark-scheme writes get past every rule to the database.
    const canvasA = sampleCanvas();
    canvasA.questions[3]!.max_marks = null as never;
    const templateA = await jsonCall("api/exam/templates", "POST", teacher, { title: "Fuzz A", page_count: 4 });
    await jsonCall("api/exam/templates/[template_id]", "PUT", teacher, { ...canvasA, ids: undefined }, [templateA.id]);
    const canvasB = sampleCanvas();
    const templateB = await jsonCall("api/exam/templates", "POST", teacher, { title: "Fuzz B" });
    await jsonCall("api/exam/templates/[template_id]", "PUT", teacher, { questions: canvasB.questions, response_areas: canvasB.response_areas, boundaries: canvasB.boundaries }, [templateB.id]);

    const savedComment = await jsonCall("api/exam/questions/[question_id]/comments", "POST", teacher, { text: "Show your working" }, [canvasB.ids.q2]);
    const rubricItem = await jsonCall("api/exam/questions/[question_id]/rubric-items", "POST", teacher, { text: "Correct method", points: 2 }, [canvasB.ids.q2]);
    const batch = await jsonCall("api/exam/batches", "POST", teacher, { template_id: templateA.id, class_id: roster.class.id, title: "Fuzz batch" });
    const queue = await jsonCall("api/exam/batches/[batch_id]/queue", "GET", teacher, undefined, [batch.id]);
    const submission = queue.submissions[0];
    const markId = crypto.randomUUID();
    const markBody = {
      submission_id: submission.id,
      question_id: canvasA.ids.q2,
      awarded_marks: 1.5,
      mark_scheme_detail: { points: ["M1"], note: "ok" },
      annotation_shape_ids: ["shape:1"],
      comment: "Good",
      confirmed: false,
    };
    await jsonCall("api/exam/marks/[mark_id]", "PUT", teacher, markBody, [markId]);

    const paper = await PDFDocument.create();
    paper.addPage([595, 842]);
    const paperBytes = await paper.save();
    const filesRoute = operations.find((operation) => operation.route.folder === "api/exam/files")!.route;
    const upload = multipartBody([{ name: "file", filename: "paper.pdf", bytes: paperBytes }]);
    const uploaded = await callRoute(filesRoute, "POST", { headers: { authorization: `Bearer ${teacher}`, "content-type": upload.contentType }, body: upload.body });
    if (uploaded.status !== 201) throw new Error(`file upload answered ${uploaded.status}: ${await uploaded.text()}`);
    const file = await uploaded.json();

    // A filed scanned page (class-set intake; its imaging a stand-in: tests/support/intake-imaging-double.ts).
    const imaging = setIntakeImaging(imagingDouble());
    const printed = await printedBatch(db, school, templateA.id, { students: 1, spares: 0 });
    const pileForm = multipartBody([{ name: "file", filename: "pile.pdf", bytes: await testPile([{ label: "p1", code: printed.code(1, 1) }]) }]);
    const pilesRoute = operations.find((operation) => operation.route.folder === "api/exam/batches/[batch_id]/piles")!.route;
    const pileReply = await callRoute(pilesRoute, "POST", { params: [printed.batch.id], headers: { authorization: `Bearer ${teacher}`, "content-type": pileForm.contentType }, body: pileForm.body });
    if (pileReply.status !== 202) throw new Error(`pile upload answered ${pileReply.status}: ${await pileReply.text()}`);
    const pile = await pileReply.json();
    await processScanPile(db, pile.id, imaging);
    const [scanPage] = await pagesOfPile(db, pile.id);

    const canvasPath = `${SNAPSHOT_BUCKET}/User/${school.teacher.id}`;
    fixture = {
      school,
      pathValues: {
        template_id: templateB.id,
        markedTemplateId: templateA.id,
        // Copying the marked template's (the same canvas, no rubric) into B changes nothing of B.
        source_template_id: templateA.id,
        batch_id: batch.id,
        file_id: file.id,
        mark_id: markId,
        question_id: canvasB.ids.q2,
        item_id: rubricItem.id,
        comment_id: savedComment.id,
        submission_id: submission.id,
        class_id: roster.class.id,
        user_id: roster.students[0]!.id,
        page_id: scanPage!.id,
        // No review request exists: a valid answer is a 404, so hostile ones test the edge without writing.
        request_id: crypto.randomUUID(),
        // A shape id nobody holds yet: a valid save makes it, a removal of it is a 404 until then.
        annotation_id: crypto.randomUUID(),
      },
      valid: {
        "POST /api/exam/templates": { json: { title: "Fuzzed", subject: "Maths", exam_code: "8300/1H", page_count: 4 } },
        "PUT /api/exam/templates/{template_id}": {
          json: {
            title: "Fuzz B",
            page_count: null,
            questions: canvasB.questions,
            // Question 2's area holds tick boxes: hostile ones are refused as the rest of the canvas is.
            response_areas: canvasB.response_areas.map((area) =>
              area.question_id === canvasB.ids.q2
                ? { ...area, tick_boxes: [{ label: "A", x: 0.12, y: 0.22, width: 0.02, height: 0.014, shape: "square" }, { label: "B", x: 0.2, y: 0.22, width: 0.02, height: 0.02, shape: "round" }] }
                : area,
            ),
            boundaries: canvasB.boundaries,
          },
        },
        "POST /api/exam/templates/{template_id}/tick-boxes/find": { json: { page: 1, x: 0.1, y: 0.1, width: 0.5, height: 0.2 } },
        "POST /api/exam/templates/{template_id}/mark-scheme/read": { json: { text: "Question | Answer | Marks\n1a | 2x = 6 | M1\n2 | units | B1" } },
        "POST /api/exam/templates/{template_id}/mark-scheme/read-pdf": { form: [{ name: "file", filename: "scheme.pdf", bytes: paperBytes }] },
        "POST /api/exam/templates/{template_id}/mark-scheme/apply": { json: { parts: [{ question_id: canvasB.ids.q2, items: [{ text: "Fuzzed item", points: 1 }] }] } },
        "PATCH /api/exam/questions/{question_id}": {
          json: { max_marks: 5, mark_scheme: { type: "points", points: ["M1", "A1"] }, answer_type: "numeric", spec_ref: "8300.A2" },
        },
        "POST /api/exam/questions/{question_id}/rubric-items": { json: { text: "Correct units", points: -1.5, spec_ref: "8300.A2", comment: "Units!", position: 0 } },
        "PATCH /api/exam/rubric-items/{item_id}": { json: { text: "Valid method", points: 1.5, spec_ref: null, comment: "Well set out", position: 1 } },
        "POST /api/exam/questions/{question_id}/comments": { json: { text: "Units! cm² not cm" } },
        "POST /api/exam/batches": { json: { template_id: templateA.id, class_id: roster.class.id, title: "Another" } },
        "PUT /api/exam/marks/{mark_id}": { json: markBody },
        "PUT /api/exam/annotations/{annotation_id}": {
          json: { submission_id: submission.id, kind: "pen", page: 1, question_id: canvasA.ids.q2, geometry: { points: [[0.1, 0.2, 0.5], [0.3, 0.4, 1]] } },
        },
        // Shared marking: the path's user_id is a student, so allocations are a 404 (not a marker); the shapes are what is fuzzed.
        "POST /api/exam/batches/{batch_id}/markers": { json: { user_id: school.otherTeacher.id } },
        "PUT /api/exam/batches/{batch_id}/markers/{user_id}/allocations": { json: { allocations: [{ question_id: canvasA.ids.q2 }, { first_script: 1, last_script: 2 }] } },
        "POST /api/exam/batches/{batch_id}/claims": { json: { by: "question" } },
        "POST /api/exam/batches/{batch_id}/claims/release": { json: { submission_id: submission.id, question_id: canvasA.ids.q2 } },
        "PUT /api/exam/batches/{batch_id}/moderation/sample": { json: { percent: 50, tolerance: 1 } },
        // No script of the batch is complete: a valid release of complete scripts is a 409, so hostile ones test the edge.
        "PUT /api/exam/batches/{batch_id}/release": { json: { scope: "complete", reviews_until: null, confirm_unmoderated: false } },
        // The teacher gave the first mark (a 403) and there is no second mark to reconcile (a 409): hostile ones test the edge.
        "POST /api/exam/submissions/{submission_id}/second-marks": { json: { question_id: canvasA.ids.q2, awarded_marks: 1 } },
        "POST /api/exam/submissions/{submission_id}/reconcile": { json: { question_id: canvasA.ids.q2, final_marks: 1 } },
        // Off, as the batch is: a valid call leaves what the owner reads as it was.
        "PATCH /api/exam/batches/{batch_id}": { json: { anonymous: false } },
        "POST /api/exam/submissions/{submission_id}/assign": { json: { student_id: roster.students[1]!.id } },
        // Answers read from the scan: the path's question has no tick boxes (a 400), and the batch gives no automatic zeros (as it is).
        "PUT /api/exam/batches/{batch_id}/answers/{question_id}": { json: { submission_ids: [submission.id], answer: ["A", "C"] } },
        "PUT /api/exam/batches/{batch_id}/auto-zero-blanks": { json: { auto_zero_blanks: false } },
        "POST /api/exam/batches/{batch_id}/scans": {
          form: [
            { name: "student_id", value: roster.students[0]!.id },
            { name: "matching_method", value: "manual" },
            { name: "file", filename: "scan.pdf", bytes: pdfBytes() },
          ],
        },
        "POST /api/exam/files": { form: [{ name: "file", filename: "paper.pdf", bytes: paperBytes }] },
        "POST /api/exam/batches/{batch_id}/piles": { form: [{ name: "file", filename: "pile.pdf", bytes: pdfBytes() }] },
        "POST /api/exam/scan-pages/{page_id}/move": { json: { new_script: true } },
        "POST /api/exam/review-requests/{request_id}/answer": { json: { outcome: "changed", awarded_marks: 2, reply: "Method mark given." } },
        // The teacher's is no released script of theirs: a valid request is a 404, and writes nothing.
        "POST /api/me/scripts/{submission_id}/reviews": { json: { question_id: canvasA.ids.q2, reason: "Please look again." } },
        // Template A has no paper PDF: a valid print is a 409, so hostile ones test the edge without stamping.
        "POST /api/exam/batches/{batch_id}/printed-scripts": { json: { spare_copies: 2 } },
        "POST /database/timetable/classes/{class_id}/students": { token: school.admin.token, json: { student_id: roster.students[1]!.id } },
        "PUT /database/timetable/classes/{class_id}/teachers": { token: school.admin.token, json: { teacher_id: school.teacher.id, other_teacher_ids: [school.otherTeacher.id, school.head.id] } },
        "GET /get_canvas_node_file": { query: { path: canvasPath, db_name: school.teacher.user_db_name } },
        "PUT /put_canvas_node_file": { query: { path: canvasPath, db_name: school.teacher.user_db_name }, json: emptyCanvasSnapshot() },
        "POST /sync/token": { json: { room: canvasPath, db_name: school.teacher.user_db_name } },
        "GET /graph/node/children": { query: { neo4j_node_id: school.teacher.id, neo4j_db_name: school.teacher.user_db_name } },
        "GET /api/school/people": { token: school.admin.token, query: { search: "student", role: "student", status: "active", limit: "10", offset: "0" } },
        "POST /api/school/people": { token: school.admin.token, json: { full_name: "Fuzzy Person", email: "fuzzy.person@example.org", role: "student", year_group: "9" } },
        "GET /api/school/people/{user_id}": { token: school.admin.token },
        "PATCH /api/school/people/{user_id}": { token: school.admin.token, json: { full_name: "Renamed Student", year_group: "10", role: "student", active: true } },
        "POST /api/school/people/{user_id}/password": { token: school.admin.token },
        // The admin never gets a slip of their own: a valid choice that prints nothing (409), so hostile ones test the edge without writing.
        "POST /api/school/sign-in-slips": { token: school.admin.token, json: { user_ids: [school.admin.id], reissue: true } },
        // A dry run of the OneRoster zip: hostile queries, headers and zips (tests/hostile-zips.test.ts has the corpus's sentences).
        "POST /api/school/roster-imports": {
          token: school.admin.token,
          query: { dry_run: "true", filename: "riverside.zip" },
          zip: new Uint8Array(fs.readFileSync("tests/fixtures/roster/oneroster-riverside.zip")),
        },
      },
    };
  }, 120_000);

  /** What the owner reads of everything a write could touch, as one comparable text. */
  async function readState(): Promise<string> {
    const { pathValues, school } = fixture;
    const reads: [string, string[], Record<string, string>?, string?][] = [
      ["api/exam/templates", []],
      ["api/exam/templates/[template_id]", [pathValues.template_id!]],
      ["api/exam/templates/[template_id]", [pathValues.markedTemplateId!]],
      ["api/exam/batches", [], { include_archived: "true" }],
      ["api/exam/batches/[batch_id]/queue", [pathValues.batch_id!]],
      ["api/exam/batches/[batch_id]/results", [pathValues.batch_id!]],
      ["api/exam/batches/[batch_id]/release", [pathValues.batch_id!]],
      ["api/exam/submissions/[submission_id]/annotations", [pathValues.submission_id!]],
      ["database/timetable/classes/[class_id]/students", [pathValues.class_id!], { include_inactive: "true" }, school.admin.token],
      ["database/timetable/classes", [], undefined, school.admin.token],
      ["get_canvas_node_file", [], fixture.valid["GET /get_canvas_node_file"]!.query],
      ["api/school/people/[user_id]", [pathValues.user_id!], undefined, school.admin.token],
    ];
    const texts = [];
    for (const [folder, params, query, token] of reads) {
      const route = operations.find((operation) => operation.route.folder === folder && operation.method === "GET")!.route;
      const response = await callRoute(route, "GET", { params, query, headers: { authorization: `Bearer ${token ?? school.teacher.token}` } });
      const text = await response.text();
      if (response.status >= 500) throw new Error(`the read GET /${folder} answered ${response.status}: ${text.slice(0, 200)}`);
      texts.push(`${folder} ${response.status} ${text}`);
    }
    return texts.join("\n");
  }

  it(
    "never answers 5xx, refuses with {detail}, and leaves nothing half-written",
    async () => {
      // Every operation with a body or a required query parameter has a valid request to spoil: a new
      // route without one fails here rather than being fuzzed with nonsense only.
      for (const { route, method, name } of operations) {
        const operation = route.operations[method]!;
        const needsRecipe = operation.requestBody !== undefined || (operation.parameters ?? []).some((p) => p.in === "query" && p.required);
        if (needsRecipe) expect(fixture.valid[name], `a valid request for ${name}`).toBeDefined();
      }

      const runs = database().kind === "pglite" ? cases : Math.max(50, Math.floor(cases / 3));
      const generated = fc.sample(caseArbitrary, { seed, numRuns: runs });
      const failures: string[] = [];
      let state = await readState();
      const statuses = new Map<number, number>();
      /** Writes sent, and how many were refused as bad input (400). */
      const writes = { runs: 0, invalid: 0 };
      for (const hostile of generated) {
        const operation = operations[hostile.operation % operations.length]!;
        const { call, what } = hostileCall(operation, fixture, hostile);
        let response: Response;
        try {
          response = await callRoute(operation.route, operation.method, call);
        } catch (error) {
          failures.push(`${what} → threw ${(error as Error).message}`);
          continue;
        }
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (operation.method !== "GET") {
          writes.runs++;
          if (response.status === 400) writes.invalid++;
        }
        const text = await response.text();
        if (response.status >= 500) {
          failures.push(`${what} → ${response.status} ${text.slice(0, 200)}`);
        } else if (response.status >= 400) {
          let detail: unknown;
          try {
            detail = (JSON.parse(text) as { detail?: unknown }).detail;
          } catch {
            detail = undefined;
          }
          if (typeof detail !== "string" || detail.length === 0 || detail.length > 2000) {
            failures.push(`${what} → ${response.status} without a readable {detail}: ${text.slice(0, 200)}`);
          } else if (detail === DATABASE_REFUSED_VALUE) {
            failures.push(`${what} → refused by the database's safety net, not by the edge schemas`);
          }
        }
        if (operation.method === "GET") continue;
        let after: string;
        try {
          after = await readState();
        } catch (error) {
          failures.push(`${what} → ${response.status}, then ${(error as Error).message}`);
          break;
        }
        if (response.status >= 400 && after !== state) failures.push(`${what} → ${response.status} but the data changed`);
        state = after;
      }
      if (failures.length > 0) {
        const summary = `${failures.length} of ${runs} hostile requests failed (FUZZ_SEED=${seed}, FUZZ_CASES=${cases}):\n${failures.join("\n")}`;
        expect.fail(summary);
      }
      // The run reached validation, not only the front door: many writes are refused as bad input. Writes
      // only: a read whose one input is a record id answers a malformed id with 404 by design, so every
      // new read of that kind (a scan, a page image) would lower the share of 400s without saying anything.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect(writes.invalid).toBeGreaterThan(writes.runs / 4);
    },
    900_000,
  );
});
