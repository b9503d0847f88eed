/**
 * The student's "My work" (issue 35, item 3): a student reads their own released scripts, nothing else.
 * Read under the student's own transaction (row-level security is the guard). Another student's script,
 * an unreleased one, a withdrawn one, another school's: 404, with the same words as an id that names
 * nothing. In an anonymous batch nobody's name is in any reply. Releases are made by releaseForTest
 * (tests/support/release.ts) until exam.release.release lands.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as listRoute } from "../app/api/me/scripts/route";
import { GET as getRoute } from "../app/api/me/scripts/[submission_id]/route";
import { GET as scanRoute } from "../app/api/me/scripts/[submission_id]/scan/route";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { signUserToken } from "../server/auth/tokens";
import { asUser } from "../server/db/rls";
import { examAnnotations } from "../server/db/schema";
import { graphStore } from "../server/graph/index";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";
import { releaseForTest, withdrawForTest } from "./support/release-fixtures";

describeOnEachDatabase("the student's marked scripts", (database) => {
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let batchId: string;
  let students: { id: string; full_name: string; email: string; token: string }[];
  let scripts: string[];
  let scan: Uint8Array;
  let rubricText: string;
  let storageRoot: string;
  const tag = crypto.randomBytes(3).toString("hex");

  const restGet = (token: string, submissionId: string) => callRest(getRoute, { token, params: { submission_id: submissionId } });
  const restScan = (token: string, submissionId: string) => callRest(scanRoute, { token, params: { submission_id: submissionId } });
  const refusal = async (call: Promise<unknown>) => {
    try {
      await call;
    } catch (error) {
      return { code: (error as { code?: string }).code, message: (error as Error).message };
    }
    return { code: "none", message: "answered" };
  };

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-my-work-"));
    useObjectStorage(createLocalStorage(storageRoot));
    school = await createSchool(db(), "Returns");
    otherSchool = await createSchool(db(), "Elsewhere");
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: `Mock paper ${tag}`, page_count: 3 });
    canvas = sampleCanvas();
    await teacher.exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
    const roster = await createClassWithStudents(db(), school, 3);
    students = await Promise.all(roster.students.map(async (student) => ({ ...student, token: await signUserToken({ userId: student.id, ttlSeconds: 600 }) })));
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: `Year 10 mock ${tag}` });
    batchId = batch.id;
    const queue = await teacher.exam.batches.queue({ batch_id: batchId });
    scripts = students.map((student) => queue.submissions.find((submission) => submission.student_id === student.id)!.id);

    scan = pdfBytes(3000);
    const upload = multipartBody([
      { name: "student_id", value: students[0]!.id },
      { name: "file", filename: "scan.pdf", bytes: scan },
    ]);
    const uploaded = await scansRoute(
      new Request(`http://localhost/api/exam/batches/${batchId}/scans`, { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": upload.contentType }, body: upload.body }),
      { params: Promise.resolve({ batch_id: batchId }) },
    );
    expect(uploaded.status).toBe(200);

    rubricText = `Correct units ${tag}`;
    const units = await teacher.exam.rubric.create({ question_id: canvas.ids.q2, body: { text: rubricText, points: 2 } });
    const mark = (submissionId: string, questionId: string, awarded: number, extra: Record<string, unknown> = {}) =>
      teacher.exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true, ...extra } });
    await mark(scripts[0]!, canvas.ids.q1a, 1, { comment: "Show your working" });
    await mark(scripts[0]!, canvas.ids.q1b, 2);
    await mark(scripts[0]!, canvas.ids.q2, 2, { mark_scheme_detail: { type: "rubric", items: [units.id] } });
    await mark(scripts[1]!, canvas.ids.q2, 5, { comment: `classmate-comment-${tag}` });

    // Annotations as the annotations slice will write them: by the batch's writer, as themselves.
    await asUser(db(), school.teacher.id, (tx) =>
      tx.insert(examAnnotations).values([
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!, page: 1, kind: "tick", geometry: { x: 0.3, y: 0.3 }, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!, page: 3, kind: "text", geometry: { x: 0.2, y: 0.5 }, text: "Units missing", question_id: canvas.ids.q2, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!, page: 2, kind: "highlight", geometry: { x: 0.15, y: 0.25, width: 0.2, height: 0.05 }, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!, page: 3, kind: "cross", geometry: { x: 0.9, y: 0.95 }, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!, page: 1, kind: "pen", layer: "second_marking", geometry: { points: [[0.3, 0.3, 0.5]] }, author_id: school.teacher.id },
      ]),
    );
    // The curriculum names one of the two points the paper assesses.
    await graphStore(db()).write(school.institute.curriculum_db_name, (writer) =>
      writer.upsertNodes([{ label: "SpecificationPoint", key: "8300.N1", properties: { code: "8300.N1", name: "Order positive and negative integers" } }]),
    );
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("before release a student reads nothing of the batch: an empty list, and 404 for their own script and its scan", async () => {
    const student = students[0]!;
    expect(await as(student).student.scripts.list()).toEqual({ scripts: [] });
    expect((await refusal(as(student).student.scripts.get({ submission_id: scripts[0]! }))).code).toBe("NOT_FOUND");
    expect((await restGet(student.token, scripts[0]!)).status).toBe(404);
    expect((await restScan(student.token, scripts[0]!)).status).toBe(404);
    const listed = await callRest(listRoute, { token: student.token });
    expect(await listed.json()).toEqual({ scripts: [] });
  });

  it("a script outside the release's scope stays closed while a classmate's is released", async () => {
    await releaseForTest(db(), batchId, { submissionIds: [scripts[1]!] });
    expect((await as(students[1]!).student.scripts.list()).scripts).toHaveLength(1);
    expect(await as(students[0]!).student.scripts.list()).toEqual({ scripts: [] });
    expect((await restGet(students[0]!.token, scripts[0]!)).status).toBe(404);
  });

  it("once released, the student reads their script: marks per question, comments, rubric items, areas, annotations in words, total and what to revise", async () => {
    await releaseForTest(db(), batchId);
    const student = students[0]!;
    const { scripts: listed } = await as(student).student.scripts.list();
    expect(listed).toEqual([
      expect.objectContaining({ submission_id: scripts[0], batch_id: batchId, batch_title: `Year 10 mock ${tag}`, paper_title: `Mock paper ${tag}`, total_awarded: 5, total_available: 10, reviews_until: null }),
    ]);
    const script = await as(student).student.scripts.get({ submission_id: scripts[0]! });
    expect(script.questions.map((question) => [question.label, question.awarded_marks, question.max_marks, question.spec_ref])).toEqual([
      ["1a", 1, 3, "8300.N1"],
      ["1b", 2, 2, "8300.N1"],
      ["2", 2, 5, "8300.A2"],
    ]);
    expect(script.questions[0]!.comment).toBe("Show your working");
    expect(script.questions[2]!.rubric_items).toEqual([expect.objectContaining({ text: rubricText, points: 2 })]);
    expect(script.questions[0]!.areas).toEqual([{ page: 1, x: 0.1, y: 0.2, width: 0.5, height: 0.25 }]);
    expect([script.total_awarded, script.total_available]).toEqual([5, 10]);
    expect(script.scan).toEqual({ url: `/api/me/scripts/${scripts[0]}/scan`, page_count: 3 });
    // One insert gave them one created_at: within a page, the order is the ids'.
    expect(script.pages.map((page) => page.annotations.map((annotation) => annotation.alt).sort())).toEqual([
      ["Tick on question 1a"],
      ["Highlight on question 1b"],
      ["Comment on question 2: Units missing", "Cross on page 3"],
    ]);
    // The blind second marker's shape is not the student's to see.
    expect(JSON.stringify(script)).not.toContain("second_marking");
    expect(script.what_to_revise).toEqual([
      { spec_ref: "8300.A2", name: "8300.A2", marks_lost: 3, marks_available: 5, share_lost: 0.6, questions: ["2"] },
      { spec_ref: "8300.N1", name: "Order positive and negative integers", marks_lost: 2, marks_available: 5, share_lost: 0.4, questions: ["1a", "1b"] },
    ]);
    // REST says the same.
    const reply = await restGet(student.token, scripts[0]!);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual(JSON.parse(JSON.stringify(script)));
    const pdf = await restScan(student.token, scripts[0]!);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(new Uint8Array(await pdf.arrayBuffer())).toEqual(new Uint8Array(scan));
  });

  it("another student's script, a member of staff, another school: 404 in the words of an id that names nothing", async () => {
    const nothing = await refusal(as(students[0]!).student.scripts.get({ submission_id: crypto.randomUUID() }));
    expect(nothing.code).toBe("NOT_FOUND");
    const nothingRest = await (await restGet(students[0]!.token, crypto.randomUUID())).json();
    for (const [who, token] of [
      [students[1]!, students[1]!.token],
      [school.teacher, school.teacher.token],
      [school.admin, school.admin.token],
      [otherSchool.student, otherSchool.student.token],
      [otherSchool.teacher, otherSchool.teacher.token],
    ] as const) {
      expect(await refusal(as(who).student.scripts.get({ submission_id: scripts[0]! }))).toEqual(nothing);
      const rest = await restGet(token, scripts[0]!);
      expect(rest.status).toBe(404);
      expect(await rest.json()).toEqual(nothingRest);
      expect((await restScan(token, scripts[0]!)).status).toBe(404);
    }
    // Staff read the batch itself, never through the student's view.
    expect(await as(school.teacher).student.scripts.list()).toEqual({ scripts: [] });
    // A released script without a scan: the script reads, the scan is 404.
    expect((await as(students[1]!).student.scripts.get({ submission_id: scripts[1]! })).scan.url).toBeNull();
    expect((await restScan(students[1]!.token, scripts[1]!)).status).toBe(404);
  });

  it("a withdrawn release closes the script again, its scan too", async () => {
    await withdrawForTest(db(), batchId);
    expect(await as(students[0]!).student.scripts.list()).toEqual({ scripts: [] });
    expect((await restGet(students[0]!.token, scripts[0]!)).status).toBe(404);
    expect((await restScan(students[0]!.token, scripts[0]!)).status).toBe(404);
    await releaseForTest(db(), batchId);
    expect((await restGet(students[0]!.token, scripts[0]!)).status).toBe(200);
  });

  it("in an anonymous batch the student sees their own script and nobody's name, not even theirs", async () => {
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: batchId, anonymous: true });
    const replies = [
      await (await callRest(listRoute, { token: students[0]!.token })).text(),
      await (await restGet(students[0]!.token, scripts[0]!)).text(),
      JSON.stringify(await as(students[0]!).student.scripts.get({ submission_id: scripts[0]! })),
    ];
    for (const text of replies) {
      expect(text).toContain(scripts[0]!);
      for (const student of students) {
        expect(text).not.toContain(student.full_name);
        expect(text).not.toContain(student.email);
        if (student.id !== students[0]!.id) expect(text).not.toContain(student.id);
      }
      expect(text).not.toContain(school.teacher.full_name);
      expect(text).not.toContain(`classmate-comment-${tag}`);
      for (const other of scripts.slice(1)) expect(text).not.toContain(other);
    }
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: batchId, anonymous: false });
  });

  it("hostile ids in the path are 404 or 400, never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, async (id) => {
        for (const route of [getRoute, scanRoute]) {
          const reply = await callRest(route, { token: students[0]!.token, params: { submission_id: id } });
          expect([400, 404]).toContain(reply.status);
        }
        const trpc = await refusal(as(students[0]!).student.scripts.get({ submission_id: id }));
        expect(["NOT_FOUND", "BAD_REQUEST"]).toContain(trpc.code);
      }),
      { ...fuzzSettings(40) },
    );
  });
});
