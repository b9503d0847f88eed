import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { examAnnotations, examScanPages, examScanPiles, examSubmissions, files } from "../server/db/schema";
import { type BatchAction, batchActions, batchRefusal } from "../server/exam/batch-gate";
import { signOffWarnings } from "../components/moderation/sign-off-warnings";
import { errorCodes } from "../server/errors";
import { appRouter, createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { type HttpMethod, type RestRoute, callRoute, loadRestRoutes } from "./support/rest-routes";

/**
 * The batch gate (server/exam/batch-gate.ts; issue 34, item 2): every write path of a batch — each REST
 * route that is not a read and each tRPC mutation — is listed below with the action it names, or in
 * the short list of writes that change no existing batch. Both lists are checked against the routes on
 * disk and the router, so a new write path is a failing test until someone says which action it is.
 * Then every listed path is called on a signed-off batch, on an archived one and by a colleague who is
 * neither the owner, a marker nor a department head, and must answer with the gate's refusal (status and
 * sentence), unless its action declares the exception.
 */

type Person = School["teacher"];

/** Ids of one batch of the gate's fixture. */
interface Fixture {
  batchId: string;
  /** A roster submission with a scan, and one without (a student who may be marked absent). */
  scannedId: string;
  unscannedId: string;
  unmatchedId: string;
  studentId: string;
  questionId: string;
  pageId: string;
  markerId: string;
  /** A shape of the first marking on the scanned submission. */
  annotationId: string;
}

/** What a path answered: its status, and its sentence when it refused. */
interface Answer {
  status: number;
  message?: string;
}

interface PathCase {
  action: BatchAction;
  call(person: Person, fx: Fixture): Promise<Answer>;
}

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });

/** Writes that change no existing batch, with the reason they are not the gate's. */
const notBatchWrites: Record<string, string> = {
  "POST /api/exam/batches": "creates a batch",
  "exam.batches.create": "creates a batch",
  "POST /api/exam/files": "uploads a template's paper",
  "PATCH /api/exam/questions/{question_id}": "a template's question (the template's owner)",
  "POST /api/exam/questions/{question_id}/comments": "a question's comment bank",
  "POST /api/exam/questions/{question_id}/rubric-items": "a template's rubric",
  "PATCH /api/exam/rubric-items/{item_id}": "a template's rubric",
  "DELETE /api/exam/rubric-items/{item_id}": "a template's rubric",
  "DELETE /api/exam/saved-comments/{comment_id}": "a question's comment bank",
  "POST /api/exam/templates": "templates",
  "PUT /api/exam/templates/{template_id}": "templates (409 once a batch has marks)",
  "DELETE /api/exam/templates/{template_id}": "templates",
  "POST /api/exam/templates/{template_id}/graph-sync": "templates",
  "exam.templates.create": "templates",
  "exam.templates.save": "templates",
  "exam.templates.archive": "templates",
  "exam.templates.retryGraph": "templates",
  // Reads the paper to find its tick boxes; writes nothing.
  "POST /api/exam/templates/{template_id}/proposal": "templates (writes nothing)",
  "POST /api/exam/templates/{template_id}/tick-boxes/find": "templates (writes nothing)",
  "exam.templates.propose": "templates (writes nothing)",
  "exam.templates.findTickBoxes": "templates (writes nothing)",
  "exam.questions.editMarkScheme": "templates",
  "exam.rubric.create": "templates",
  "exam.rubric.edit": "templates",
  "exam.rubric.delete": "templates",
  "exam.rubric.applyScheme": "a template's rubric",
  "exam.rubric.readScheme": "templates (writes nothing)",
  "exam.templates.copyFrom": "templates",
  "POST /api/exam/templates/{template_id}/mark-scheme/apply": "a template's rubric",
  "POST /api/exam/templates/{template_id}/mark-scheme/read": "templates (writes nothing)",
  "POST /api/exam/templates/{template_id}/mark-scheme/read-pdf": "templates (writes nothing)",
  "POST /api/exam/templates/{template_id}/copy-from/{source_template_id}": "templates",
  "exam.comments.save": "a question's comment bank",
  "exam.comments.remove": "a question's comment bank",
  // A changed mark goes through the gate's `mark` (tests/returns-review-requests.test.ts); a kept one changes nothing of the batch.
  "POST /api/exam/review-requests/{request_id}/answer": "answers a review request",
  "exam.reviews.answer": "answers a review request",
};
/** Areas that hold no batch at all. */
const notExam = (key: string) => !/^(exam\.|[A-Z]+ \/api\/exam\/)/.test(key);

const restWrite = (routes: RestRoute[], method: HttpMethod, path: string) => {
  const route = routes.find((candidate) => candidate.openApiPath === path);
  if (!route) throw new Error(`no route ${path}`);
  return async (token: string, params: string[], call: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Answer> => {
    const reply = await callRoute(route, method, { params, body: call.body, headers: { authorization: `Bearer ${token}`, ...call.headers } });
    const text = await reply.text();
    let message: string | undefined;
    try {
      message = (JSON.parse(text) as { detail?: string }).detail;
    } catch {
      message = undefined;
    }
    return { status: reply.status, message };
  };
};

const trpcStatus = Object.fromEntries(Object.values(errorCodes).map((code) => [code.trpc, code.status])) as Record<string, number>;
async function trpcAnswer(call: Promise<unknown>): Promise<Answer> {
  try {
    await call;
    return { status: 200 };
  } catch (error) {
    if (error instanceof TRPCError) return { status: trpcStatus[error.code] ?? 500, message: error.message };
    throw error;
  }
}

describeOnEachDatabase("the batch gate: every write path of a batch, refused on a signed-off or archived batch and to a colleague", (database) => {
  let school: School;
  let routes: RestRoute[];
  const db = () => database().db;
  const as = (person: { id: string }) => createCaller({ db: db(), user: { id: person.id } });

  beforeAll(async () => {
    school = await createSchool(db(), "Gate");
    routes = await loadRestRoutes();
  });

  /** A batch of the school's teacher: two students, one scanned; an unmatched scan; a pile page; the admin invited as a marker. */
  async function gatedBatch(state: "open" | "signed_off" | "archived"): Promise<Fixture> {
    const owner = as(school.teacher);
    const template = await owner.exam.templates.create({ title: `Gate ${crypto.randomUUID().slice(0, 6)}`, page_count: 4 });
    const canvas = sampleCanvas();
    await owner.exam.templates.save({ template_id: template.id, body: canvas });
    const roster = await createClassWithStudents(db(), school, 2);
    const batch = await owner.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    await owner.exam.markers.invite({ batch_id: batch.id, body: { user_id: school.admin.id } });
    const ids = await asService(db(), async (tx) => {
      const slots = await tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)).orderBy(examSubmissions.script_number);
      await tx.update(examSubmissions).set({ scan_url: `exam-submissions/${batch.id}/a.pdf`, status: "matched" }).where(eq(examSubmissions.id, slots[0]!.id));
      const [unmatched] = await tx
        .insert(examSubmissions)
        .values({ batch_id: batch.id, status: "unmatched", scan_url: `exam-submissions/${batch.id}/b.pdf`, matching_method: "ordered" })
        .returning();
      const [file] = await tx
        .insert(files)
        .values({ institute_id: school.institute.id, owner_id: school.teacher.id, bucket: "gate", storage_key: `gate/${crypto.randomUUID()}.pdf`, content_type: "application/pdf", byte_size: 10, sha256: "0" })
        .returning();
      const [pile] = await tx.insert(examScanPiles).values({ batch_id: batch.id, file_id: file!.id, uploaded_by: school.teacher.id, byte_size: 10, status: "done" }).returning();
      const [page] = await tx.insert(examScanPages).values({ pile_id: pile!.id, batch_id: batch.id, pile_page: 1, file_id: file!.id, placement: "duplicate" }).returning();
      const [annotation] = await tx
        .insert(examAnnotations)
        .values({ id: crypto.randomUUID(), batch_id: batch.id, submission_id: slots[0]!.id, page: 1, kind: "tick", geometry: { x: 0.5, y: 0.5 }, author_id: school.teacher.id })
        .returning();
      return { scannedId: slots[0]!.id, unscannedId: slots[1]!.id, unmatchedId: unmatched!.id, pageId: page!.id, annotationId: annotation!.id };
    });
    if (state === "signed_off") await as(school.head).exam.moderation.signOff({ batch_id: batch.id });
    if (state === "archived") await owner.exam.batches.archive({ batch_id: batch.id });
    return { batchId: batch.id, ...ids, studentId: roster.students[1]!.id, questionId: canvas.ids.q2, markerId: school.admin.id };
  }

  /** Every write path of a batch and the action it names. */
  function batchWrites(): Record<string, PathCase> {
    const rest = (method: HttpMethod, path: string) => restWrite(routes, method, path);
    const pdf = () => {
      const form = multipartBody([{ name: "file", filename: "scan.pdf", bytes: pdfBytes() }]);
      return { body: new Uint8Array(form.body), headers: { "content-type": form.contentType } };
    };
    const markBody = (fx: Fixture) => ({ submission_id: fx.scannedId, question_id: fx.questionId, awarded_marks: 1 });
    const shapeBody = (fx: Fixture) => ({ submission_id: fx.scannedId, kind: "tick" as const, page: 1, geometry: { x: 0.5, y: 0.5 } });
    return {
      "PATCH /api/exam/batches/{batch_id}": { action: "change_settings", call: (p, fx) => rest("PATCH", "/api/exam/batches/{batch_id}")(p.token, [fx.batchId], json({ anonymous: true })) },
      "exam.batches.setAnonymous": { action: "change_settings", call: (p, fx) => trpcAnswer(as(p).exam.batches.setAnonymous({ batch_id: fx.batchId, anonymous: true })) },
      "POST /api/exam/batches/{batch_id}/archive": { action: "archive", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/archive")(p.token, [fx.batchId]) },
      "exam.batches.archive": { action: "archive", call: (p, fx) => trpcAnswer(as(p).exam.batches.archive({ batch_id: fx.batchId })) },
      "POST /api/exam/batches/{batch_id}/claims": { action: "claim", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/claims")(p.token, [fx.batchId], json({})) },
      "exam.claims.claim": { action: "claim", call: (p, fx) => trpcAnswer(as(p).exam.claims.claim({ batch_id: fx.batchId, body: {} })) },
      "POST /api/exam/batches/{batch_id}/claims/release": {
        action: "release_claim",
        call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/claims/release")(p.token, [fx.batchId], json({ submission_id: fx.scannedId, question_id: fx.questionId })),
      },
      "exam.claims.release": {
        action: "release_claim",
        call: (p, fx) => trpcAnswer(as(p).exam.claims.release({ batch_id: fx.batchId, body: { submission_id: fx.scannedId, question_id: fx.questionId } })),
      },
      "POST /api/exam/batches/{batch_id}/markers": {
        action: "invite_marker",
        call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/markers")(p.token, [fx.batchId], json({ user_id: school.otherTeacher.id })),
      },
      "exam.markers.invite": { action: "invite_marker", call: (p, fx) => trpcAnswer(as(p).exam.markers.invite({ batch_id: fx.batchId, body: { user_id: school.otherTeacher.id } })) },
      "DELETE /api/exam/batches/{batch_id}/markers/{user_id}": {
        action: "remove_marker",
        call: (p, fx) => rest("DELETE", "/api/exam/batches/{batch_id}/markers/{user_id}")(p.token, [fx.batchId, fx.markerId]),
      },
      "exam.markers.remove": { action: "remove_marker", call: (p, fx) => trpcAnswer(as(p).exam.markers.remove({ batch_id: fx.batchId, user_id: fx.markerId })) },
      "PUT /api/exam/batches/{batch_id}/markers/{user_id}/allocations": {
        action: "allocate",
        call: (p, fx) => rest("PUT", "/api/exam/batches/{batch_id}/markers/{user_id}/allocations")(p.token, [fx.batchId, fx.markerId], json({ allocations: [{ question_id: fx.questionId }] })),
      },
      "exam.markers.setAllocations": {
        action: "allocate",
        call: (p, fx) => trpcAnswer(as(p).exam.markers.setAllocations({ batch_id: fx.batchId, user_id: fx.markerId, body: { allocations: [{ question_id: fx.questionId }] } })),
      },
      "PUT /api/exam/batches/{batch_id}/moderation/sample": {
        action: "set_sample",
        call: (p, fx) => rest("PUT", "/api/exam/batches/{batch_id}/moderation/sample")(p.token, [fx.batchId], json({ percent: 50 })),
      },
      "exam.moderation.setSample": { action: "set_sample", call: (p, fx) => trpcAnswer(as(p).exam.moderation.setSample({ batch_id: fx.batchId, body: { percent: 50 } })) },
      "POST /api/exam/submissions/{submission_id}/second-marks": {
        action: "second_mark",
        call: (p, fx) => rest("POST", "/api/exam/submissions/{submission_id}/second-marks")(p.token, [fx.scannedId], json({ question_id: fx.questionId, awarded_marks: 1 })),
      },
      "exam.moderation.saveSecondMark": {
        action: "second_mark",
        call: (p, fx) => trpcAnswer(as(p).exam.moderation.saveSecondMark({ submission_id: fx.scannedId, body: { question_id: fx.questionId, awarded_marks: 1 } })),
      },
      "POST /api/exam/submissions/{submission_id}/reconcile": {
        action: "reconcile",
        call: (p, fx) => rest("POST", "/api/exam/submissions/{submission_id}/reconcile")(p.token, [fx.scannedId], json({ question_id: fx.questionId, final_marks: 1 })),
      },
      "exam.moderation.reconcile": {
        action: "reconcile",
        call: (p, fx) => trpcAnswer(as(p).exam.moderation.reconcile({ submission_id: fx.scannedId, body: { question_id: fx.questionId, final_marks: 1 } })),
      },
      "POST /api/exam/batches/{batch_id}/sign-off": { action: "sign_off", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/sign-off")(p.token, [fx.batchId]) },
      "exam.moderation.signOff": { action: "sign_off", call: (p, fx) => trpcAnswer(as(p).exam.moderation.signOff({ batch_id: fx.batchId })) },
      "POST /api/exam/batches/{batch_id}/reopen": { action: "reopen", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/reopen")(p.token, [fx.batchId]) },
      "exam.moderation.reopen": { action: "reopen", call: (p, fx) => trpcAnswer(as(p).exam.moderation.reopen({ batch_id: fx.batchId })) },
      // Release changes no mark: allowed on a signed-off batch (returns/release.ts); withdrawal on an archived one too.
      "PUT /api/exam/batches/{batch_id}/release": {
        action: "release",
        call: (p, fx) => rest("PUT", "/api/exam/batches/{batch_id}/release")(p.token, [fx.batchId], json({ scope: "all" })),
      },
      "exam.release.release": { action: "release", call: (p, fx) => trpcAnswer(as(p).exam.release.release({ batch_id: fx.batchId, scope: "all" })) },
      "DELETE /api/exam/batches/{batch_id}/release": {
        action: "withdraw_release",
        call: (p, fx) => rest("DELETE", "/api/exam/batches/{batch_id}/release")(p.token, [fx.batchId]),
      },
      "exam.release.withdraw": { action: "withdraw_release", call: (p, fx) => trpcAnswer(as(p).exam.release.withdraw({ batch_id: fx.batchId })) },
      "POST /api/exam/batches/{batch_id}/scans": { action: "upload_scan", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/scans")(p.token, [fx.batchId], pdf()) },
      "POST /api/exam/batches/{batch_id}/piles": { action: "upload_pile", call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/piles")(p.token, [fx.batchId], pdf()) },
      "POST /api/exam/batches/{batch_id}/printed-scripts": {
        action: "print_scripts",
        call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/printed-scripts")(p.token, [fx.batchId], json({})),
      },
      "POST /api/exam/scan-pages/{page_id}/move": { action: "move_page", call: (p, fx) => rest("POST", "/api/exam/scan-pages/{page_id}/move")(p.token, [fx.pageId], json({ new_script: true })) },
      "exam.intake.movePage": { action: "move_page", call: (p, fx) => trpcAnswer(as(p).exam.intake.movePage({ page_id: fx.pageId, new_script: true })) },
      "POST /api/exam/submissions/{submission_id}/assign": {
        action: "assign_scan",
        call: (p, fx) => rest("POST", "/api/exam/submissions/{submission_id}/assign")(p.token, [fx.unmatchedId], json({ student_id: fx.studentId })),
      },
      "exam.submissions.assign": { action: "assign_scan", call: (p, fx) => trpcAnswer(as(p).exam.submissions.assign({ submission_id: fx.unmatchedId, student_id: fx.studentId })) },
      "PUT /api/exam/submissions/{submission_id}/absence": { action: "set_absence", call: (p, fx) => rest("PUT", "/api/exam/submissions/{submission_id}/absence")(p.token, [fx.unscannedId]) },
      "DELETE /api/exam/submissions/{submission_id}/absence": {
        action: "set_absence",
        call: (p, fx) => rest("DELETE", "/api/exam/submissions/{submission_id}/absence")(p.token, [fx.unscannedId]),
      },
      "exam.submissions.setAbsence": { action: "set_absence", call: (p, fx) => trpcAnswer(as(p).exam.submissions.setAbsence({ submission_id: fx.unscannedId, absent: true })) },
      "PUT /api/exam/marks/{mark_id}": { action: "mark", call: (p, fx) => rest("PUT", "/api/exam/marks/{mark_id}")(p.token, [crypto.randomUUID()], json(markBody(fx))) },
      "exam.marks.upsert": { action: "mark", call: (p, fx) => trpcAnswer(as(p).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: markBody(fx) })) },
      "PUT /api/exam/annotations/{annotation_id}": {
        action: "annotate",
        call: (p, fx) => rest("PUT", "/api/exam/annotations/{annotation_id}")(p.token, [crypto.randomUUID()], json(shapeBody(fx))),
      },
      "exam.annotations.save": { action: "annotate", call: (p, fx) => trpcAnswer(as(p).exam.annotations.save({ annotation_id: crypto.randomUUID(), body: shapeBody(fx) })) },
      "DELETE /api/exam/annotations/{annotation_id}": { action: "annotate", call: (p, fx) => rest("DELETE", "/api/exam/annotations/{annotation_id}")(p.token, [fx.annotationId]) },
      "exam.annotations.remove": { action: "annotate", call: (p, fx) => trpcAnswer(as(p).exam.annotations.remove({ annotation_id: fx.annotationId })) },
      // Answers read from the scan: a group's answer, the blanks' zeros and an undone automatic mark are mark writes; the automatic zeros a setting.
      "PUT /api/exam/batches/{batch_id}/answers/{question_id}": {
        action: "mark",
        call: (p, fx) => rest("PUT", "/api/exam/batches/{batch_id}/answers/{question_id}")(p.token, [fx.batchId, fx.questionId], json({ submission_ids: [fx.scannedId], answer: ["A"] })),
      },
      "exam.answers.setAnswer": {
        action: "mark",
        call: (p, fx) => trpcAnswer(as(p).exam.answers.setAnswer({ batch_id: fx.batchId, question_id: fx.questionId, submission_ids: [fx.scannedId], answer: ["A"] })),
      },
      "POST /api/exam/batches/{batch_id}/answers/{question_id}/zero-blanks": {
        action: "mark",
        call: (p, fx) => rest("POST", "/api/exam/batches/{batch_id}/answers/{question_id}/zero-blanks")(p.token, [fx.batchId, fx.questionId]),
      },
      "exam.answers.zeroBlanks": { action: "mark", call: (p, fx) => trpcAnswer(as(p).exam.answers.zeroBlanks({ batch_id: fx.batchId, question_id: fx.questionId })) },
      "DELETE /api/exam/submissions/{submission_id}/automatic-marks/{question_id}": {
        action: "mark",
        call: (p, fx) => rest("DELETE", "/api/exam/submissions/{submission_id}/automatic-marks/{question_id}")(p.token, [fx.scannedId, fx.questionId]),
      },
      "exam.answers.undoAutomaticMark": { action: "mark", call: (p, fx) => trpcAnswer(as(p).exam.answers.undoAutomaticMark({ submission_id: fx.scannedId, question_id: fx.questionId })) },
      "PUT /api/exam/batches/{batch_id}/auto-zero-blanks": {
        action: "change_settings",
        call: (p, fx) => rest("PUT", "/api/exam/batches/{batch_id}/auto-zero-blanks")(p.token, [fx.batchId], json({ auto_zero_blanks: true })),
      },
      "exam.answers.setAutoZeroBlanks": { action: "change_settings", call: (p, fx) => trpcAnswer(as(p).exam.answers.setAutoZeroBlanks({ batch_id: fx.batchId, auto_zero_blanks: true })) },
    };
  }

  it("lists every write path of the app: a batch's with its action, or among the writes that change no batch", async () => {
    const listed = [
      ...routes.flatMap((route) => route.methods.filter((method) => method !== "GET").map((method) => `${method} ${route.openApiPath}`)),
      ...Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
        .filter(([, procedure]) => procedure._def.type === "mutation")
        .map(([key]) => key),
    ].filter((key) => !notExam(key));
    const gated = Object.keys(batchWrites());
    expect(listed.filter((key) => !gated.includes(key) && !(key in notBatchWrites)), "write paths that name no batch action (add them to batchWrites or notBatchWrites)").toEqual([]);
    expect([...gated, ...Object.keys(notBatchWrites)].filter((key) => !listed.includes(key)), "listed paths that no longer exist").toEqual([]);
    expect(gated.filter((key) => key in notBatchWrites)).toEqual([]);
  });

  /** Who may do the action (the one the state tests call as). */
  const allowedPerson = (action: BatchAction): Person => {
    const who = batchActions[action].who;
    return who === "heads" ? school.head : who === "staff" ? school.otherTeacher : school.teacher;
  };
  const exempt = (action: BatchAction, state: "archived" | "signed_off") => ((batchActions[action] as { exceptions?: readonly string[] }).exceptions ?? []).includes(state);

  describe.each(["signed_off", "archived"] as const)("on a %s batch", (state) => {
    it("every write path of a batch answers the gate's 409 with its sentence, but where its action declares the exception", async () => {
      let shared: Fixture | null = null;
      for (const [key, path] of Object.entries(batchWrites())) {
        // An action that may proceed changes the batch: it gets a batch of its own.
        const fx = exempt(path.action, state) ? await gatedBatch(state) : (shared ??= await gatedBatch(state));
        const answer = await path.call(allowedPerson(path.action), fx);
        const refusal = batchRefusal(path.action, state);
        if (exempt(path.action, state)) expect(answer.message, key).not.toBe(refusal.message);
        else expect(answer, key).toEqual({ status: 409, message: refusal.message });
      }
    });
  });

  it("a colleague who is neither the owner, a marker nor a department head is refused every write but a blind second mark, with 403 naming the owner", async () => {
    const fx = await gatedBatch("open");
    for (const [key, path] of Object.entries(batchWrites())) {
      const answer = await path.call(school.otherTeacher, fx);
      if (batchActions[path.action].who === "staff") {
        expect(answer.status, key).not.toBe(403);
        continue;
      }
      expect(answer.status, key).toBe(403);
      // Moderation's reads and writes share their moderator check (moderation/shared.ts), in its own words.
      if (path.action === "set_sample" || path.action === "reconcile") expect(answer.message, key).toMatch(/owner or a department head/);
      // The mark write's refusal is SQL's (marks.ts: no owner's name to hand); the answers' writes ask the gate first, which names the owner.
      else if (path.action === "mark" && !/answers|automatic-marks/.test(key)) expect(answer.message, key).toBe(batchRefusal("mark", "not_writer").message);
      else expect(answer.message, key).toBe(batchRefusal(path.action, "not_writer", school.teacher.full_name).message);
    }
  });

  it("a department head and an invited marker write marks; a signed-off batch is refused to them too", async () => {
    const fx = await gatedBatch("open");
    const write = (person: Person) => trpcAnswer(as(person).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: fx.scannedId, question_id: fx.questionId, awarded_marks: 1 } }));
    expect(await write(school.head)).toEqual({ status: 200 });
    await as(school.teacher).exam.markers.setAllocations({ batch_id: fx.batchId, user_id: school.admin.id, body: { allocations: [{ question_id: fx.questionId }] } });
    expect(await write(school.admin)).toEqual({ status: 200 });
    await as(school.head).exam.moderation.signOff({ batch_id: fx.batchId });
    for (const person of [school.head, school.admin, school.teacher]) expect(await write(person)).toEqual({ status: 409, message: batchRefusal("mark", "signed_off").message });
  });

  it("the moderation state counts what a sign-off leaves undone, for the dialog that asks to confirm", async () => {
    const fx = await gatedBatch("open");
    const head = as(school.head);
    // Two scripts with a scan (a student's and one to identify), neither completely marked; no sample yet.
    expect((await head.exam.moderation.state({ batch_id: fx.batchId })).before_sign_off).toEqual({ unmarked_scripts: 2, unreconciled_differences: 0, unsecond_marked_scripts: 0 });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: fx.scannedId, question_id: fx.questionId, awarded_marks: 5, confirmed: true } });
    await head.exam.moderation.setSample({ batch_id: fx.batchId, body: { submission_ids: [fx.scannedId], tolerance: 0 } });
    expect((await head.exam.moderation.state({ batch_id: fx.batchId })).before_sign_off).toMatchObject({ unsecond_marked_scripts: 1, unreconciled_differences: 0 });
    await as(school.otherTeacher).exam.moderation.saveSecondMark({ submission_id: fx.scannedId, body: { question_id: fx.questionId, awarded_marks: 2 } });
    expect((await head.exam.moderation.state({ batch_id: fx.batchId })).before_sign_off).toMatchObject({ unsecond_marked_scripts: 0, unreconciled_differences: 1 });
    await head.exam.moderation.reconcile({ submission_id: fx.scannedId, body: { question_id: fx.questionId, final_marks: 4 } });
    expect((await head.exam.moderation.state({ batch_id: fx.batchId })).before_sign_off).toMatchObject({ unsecond_marked_scripts: 0, unreconciled_differences: 0 });
    expect(signOffWarnings({ unmarked_scripts: 1, unreconciled_differences: 2, unsecond_marked_scripts: 3 })).toEqual([
      "1 script is not completely marked.",
      "2 differences are not reconciled.",
      "3 scripts of the sample are not second-marked.",
    ]);
    expect(signOffWarnings({ unmarked_scripts: 0, unreconciled_differences: 0, unsecond_marked_scripts: 0 })).toEqual([]);
  });
});
