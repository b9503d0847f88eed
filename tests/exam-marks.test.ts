import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PUT as saveAnnotationRoute } from "../app/api/exam/annotations/[annotation_id]/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { examMarkEntries, examSubmissions } from "../server/db/schema";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("exam marks", (database) => {
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let otherCanvas: ReturnType<typeof sampleCanvas>;
  let batchId: string;
  let submissions: { id: string; status: string }[];

  const mark = (token: string, body: Record<string, unknown>, markId: string = crypto.randomUUID()) =>
    callRest(markRoute, { method: "PUT", token, body, params: { mark_id: markId } });
  const statusOf = async (submissionId: string) => {
    const [row] = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId)));
    return row!.status;
  };

  async function templateWithCanvas(token: string) {
    const template = await (await callRest(postTemplate, { method: "POST", token, body: { title: "Mock", page_count: 4 } })).json();
    const layout = sampleCanvas();
    expect((await callRest(putTemplate, { method: "PUT", token, body: layout, params: { template_id: template.id } })).status).toBe(200);
    return { template, layout };
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Marks");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const made = await templateWithCanvas(school.teacher.token);
    canvas = made.layout;
    otherCanvas = (await templateWithCanvas(school.teacher.token)).layout;
    const roster = await createClassWithStudents(database().db, school, 4);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: made.template.id, class_id: roster.class.id } })).json();
    batchId = batch.id;
    submissions = (await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batchId } })).json()).submissions;
  });

  it("upserts with batch_id from the submission and marked_by teacher; writes optional fields only when supplied", async () => {
    const submission = submissions[0]!;
    const markId = crypto.randomUUID();
    // A mark keeps the annotation ids that name a shape of its script (docs/decisions/marking-quality.md, "Annotations on the scan").
    const shapeId = crypto.randomUUID();
    const shape = await callRest(saveAnnotationRoute, {
      method: "PUT",
      token: school.teacher.token,
      body: { submission_id: submission.id, kind: "tick", page: 1, geometry: { x: 0.5, y: 0.5 } },
      params: { annotation_id: shapeId },
    });
    expect(shape.status).toBe(200);
    const first = await mark(school.teacher.token, {
      submission_id: submission.id,
      question_id: canvas.ids.q1a,
      awarded_marks: 2,
      comment: "good method",
      annotation_shape_ids: [shapeId],
      mark_scheme_detail: { M1: true, A1: false },
      batch_id: crypto.randomUUID(), // ignored: taken from the submission
    }, markId);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      id: markId,
      submission_id: submission.id,
      question_id: canvas.ids.q1a,
      batch_id: batchId,
      awarded_marks: 2,
      comment: "good method",
      annotation_shape_ids: [shapeId],
      mark_scheme_detail: { M1: true, A1: false },
      confirmed: false,
      marked_by: "teacher",
      marked_by_user_id: school.teacher.id,
    });
    // A department head changes the value only: the other fields stay, the entry keeps its id.
    const second = await mark(school.head.token, { submission_id: submission.id, question_id: canvas.ids.q1a, awarded_marks: 3 }, crypto.randomUUID());
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ id: markId, awarded_marks: 3, comment: "good method", annotation_shape_ids: [shapeId], marked_by_user_id: school.head.id });
    const cleared = await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q1a, awarded_marks: 3, comment: null }, markId);
    expect((await cleared.json()).comment).toBeNull();
    expect(await statusOf(submission.id)).toBe("marking");
  });

  it("moves the submission to complete when every leaf has a confirmed mark, and back to marking when one is unconfirmed", async () => {
    const submission = submissions[1]!;
    expect(await statusOf(submission.id)).toBe("absent");
    await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q1a, awarded_marks: 1, confirmed: true });
    expect(await statusOf(submission.id)).toBe("marking");
    await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q1b, awarded_marks: 2, confirmed: true });
    expect(await statusOf(submission.id)).toBe("marking");
    await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q2, awarded_marks: 0, confirmed: true });
    expect(await statusOf(submission.id)).toBe("complete");
    await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q2, awarded_marks: 1, confirmed: false });
    expect(await statusOf(submission.id)).toBe("marking");
  });

  it("moves an unmatched submission (a scan that matched nobody) to marking", async () => {
    const [unmatched] = await asService(database().db, (tx) =>
      tx.insert(examSubmissions).values({ batch_id: batchId, status: "unmatched", scan_url: `exam-submissions/${batchId}/x.pdf`, matching_method: "manual" }).returning(),
    );
    expect((await mark(school.teacher.token, { submission_id: unmatched!.id, question_id: canvas.ids.q1b, awarded_marks: 1 })).status).toBe(200);
    expect(await statusOf(unmatched!.id)).toBe("marking");
  });

  it("leaves a matched submission matched (the contract moves only absent and unmatched to marking)", async () => {
    const submission = submissions[2]!;
    await asService(database().db, (tx) => tx.update(examSubmissions).set({ status: "matched" }).where(eq(examSubmissions.id, submission.id)));
    await mark(school.teacher.token, { submission_id: submission.id, question_id: canvas.ids.q1a, awarded_marks: 1 });
    expect(await statusOf(submission.id)).toBe("matched");
  });

  it("answers 400 naming the field for marks out of range, a container, another template's question", async () => {
    const submission_id = submissions[3]!.id;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ question_id: canvas.ids.q1a, awarded_marks: 3.5 }, /^Mark: question 1a takes 0 to 3 marks, not 3\.5$/],
      [{ question_id: canvas.ids.q1a, awarded_marks: -1 }, /^Mark: /],
      [{ question_id: canvas.ids.q1a, awarded_marks: "two" }, /^Mark: /],
      [{ question_id: canvas.ids.q1, awarded_marks: 1 }, /^Question: question 1 takes no mark itself; mark its parts$/],
      [{ question_id: otherCanvas.ids.q2, awarded_marks: 1 }, /^Question: not a question of this batch's paper$/],
      [{ awarded_marks: 1 }, /^Question: /],
    ];
    for (const [body, message] of cases) {
      const response = await mark(school.teacher.token, { submission_id, ...body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).detail).toMatch(message);
    }
    expect(await statusOf(submission_id)).toBe("absent");
  });

  it("answers 404 for a submission outside the caller's scope (another school, a student, even their own) or unknown", async () => {
    const body = { submission_id: submissions[3]!.id, question_id: canvas.ids.q2, awarded_marks: 1 };
    expect((await mark(otherSchool.teacher.token, body)).status).toBe(404);
    expect((await mark(school.student.token, body)).status).toBe(404);
    expect((await mark(school.teacher.token, { ...body, submission_id: crypto.randomUUID() })).status).toBe(404);
    expect((await mark(school.teacher.token, { ...body, question_id: crypto.randomUUID() })).status).toBe(404);
    expect((await mark(school.teacher.token, body, "nope")).status).toBe(404);
    const rows = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, submissions[3]!.id)));
    expect(rows).toHaveLength(0);
  });

  it("answers 409 when the mark id already names the mark of another question", async () => {
    const markId = crypto.randomUUID();
    expect((await mark(school.teacher.token, { submission_id: submissions[3]!.id, question_id: canvas.ids.q1b, awarded_marks: 1 }, markId)).status).toBe(200);
    expect((await mark(school.teacher.token, { submission_id: submissions[3]!.id, question_id: canvas.ids.q2, awarded_marks: 1 }, markId)).status).toBe(409);
  });

  it("keeps one row when 20 PUTs of the same mark race", async () => {
    const submission_id = submissions[0]!.id;
    const markId = crypto.randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        mark(index % 2 ? school.teacher.token : school.head.token, { submission_id, question_id: canvas.ids.q2, awarded_marks: index % 6 }, markId),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const rows = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.submission_id, submission_id)));
    expect(rows.filter((row) => row.question_id === canvas.ids.q2)).toHaveLength(1);
  });

  it("never loses a mark when a canvas save races with it: the save answers 409 or the mark survives", async () => {
    for (let round = 0; round < 8; round++) {
      const { template, layout } = await templateWithCanvas(school.teacher.token);
      const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id } })).json();
      const [submission] = await asService(database().db, (tx) => tx.insert(examSubmissions).values({ batch_id: batch.id, status: "matched" }).returning());
      const markId = crypto.randomUUID();
      const [saved, marked] = await Promise.all([
        callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: layout, params: { template_id: template.id } }),
        mark(school.head.token, { submission_id: submission!.id, question_id: layout.ids.q2, awarded_marks: 1 }, markId),
      ]);
      expect([200, 409]).toContain(saved.status);
      expect([200, 409]).toContain(marked.status);
      const rows = await asService(database().db, (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.id, markId)));
      expect(rows.length, `save ${saved.status}, mark ${marked.status}`).toBe(marked.status === 200 ? 1 : 0);
    }
  });
});
