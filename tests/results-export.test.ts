import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { POST as createRoute } from "../app/api/exam/batches/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { PUT as markAbsentRoute } from "../app/api/exam/submissions/[submission_id]/absence/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { eq } from "drizzle-orm";
import { examSubmissions, users } from "../server/db/schema";
import { createClass } from "../server/classroom/classes";
import { enrollStudent } from "../server/classroom/enrollments";
import { createUser } from "../server/identity/users";
import { describeOnEachDatabase } from "./support/database";
import { callRest, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * The results a school takes away (issue 33, item 7): the contract's CSV stays byte for byte what it
 * was, and the teacher's export (CSV with a byte-order mark, and .xlsx) is in the school's shape.
 */

interface Pupil {
  id: string;
  full_name: string;
  sis_id: string | null;
}

/** A class of pupils as a roster import leaves them: full name "first last", display name the first name, an SIS id. */
async function createNamedClass(school: School, database: () => { db: Parameters<typeof asService>[0] }, className: string, pupils: { first: string; last: string; sis: string | null }[]) {
  const tag = crypto.randomBytes(4).toString("hex");
  return asService(database().db, async (tx) => {
    const created = await createClass(tx, { instituteId: school.institute.id, name: className, teacherId: school.teacher.id });
    const students: Pupil[] = [];
    for (const [index, pupil] of pupils.entries()) {
      const user = await createUser(tx, {
        email: `p${index}.${tag}@example.org`,
        fullName: `${pupil.first} ${pupil.last}`,
        displayName: pupil.first,
        instituteId: school.institute.id,
        role: "student",
      });
      if (pupil.sis) await tx.update(users).set({ sis_id: `${pupil.sis}-${tag}` }).where(eq(users.id, user.id));
      await enrollStudent(tx, { classId: created.id, studentId: user.id });
      students.push({ id: user.id, full_name: user.full_name, sis_id: pupil.sis ? `${pupil.sis}-${tag}` : null });
    }
    return { class: created, students };
  });
}

describeOnEachDatabase("results export", (database) => {
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let templateId: string;
  let roster: Awaited<ReturnType<typeof createNamedClass>>;

  const mark = (submissionId: string, questionId: string, awarded: number | null, comment: string | null = null) =>
    callRest(markRoute, {
      method: "PUT",
      token: school.teacher.token,
      body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true, comment },
      params: { mark_id: crypto.randomUUID() },
    });

  /**
   * A batch of the class with one pupil in each state: Chloé marked in full (with comments), Mateusz part-marked,
   * Zoë scanned but not marked, Ana María marked absent, Ben with no scan yet, and a scan nobody is named on.
   */
  async function markedBatch(options: { anonymous?: boolean } = {}) {
    const created = await callRest(createRoute, { method: "POST", token: school.teacher.token, body: { template_id: templateId, class_id: roster.class.id, title: "10A Maths mock" } });
    expect(created.status).toBe(201);
    const batch = await created.json();
    const queue = await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).json();
    const slot = (pupil: Pupil) => (queue.submissions as { id: string; student_id: string; script_number: number }[]).find((s) => s.student_id === pupil.id)!;
    const [chloe, mateusz, zoe, ana] = roster.students;
    expect((await mark(slot(chloe!).id, canvas.ids.q1a, 3, "Clear working; well done")).status).toBe(200);
    expect((await mark(slot(chloe!).id, canvas.ids.q1b, 1.5)).status).toBe(200);
    expect((await mark(slot(chloe!).id, canvas.ids.q2, 4, "Check units, e.g. \"cm\"")).status).toBe(200);
    expect((await mark(slot(mateusz!).id, canvas.ids.q1a, 2)).status).toBe(200);
    await asService(database().db, (tx) => tx.update(examSubmissions).set({ status: "matched" }).where(eq(examSubmissions.id, slot(zoe!).id)));
    expect((await callRest(markAbsentRoute, { method: "PUT", token: school.teacher.token, params: { submission_id: slot(ana!).id } })).status).toBe(200);
    const [unmatched] = await asService(database().db, (tx) =>
      tx.insert(examSubmissions).values({ batch_id: batch.id, student_id: null, student_name: null, status: "unmatched" }).returning(),
    );
    if (options.anonymous) {
      const patched = await callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous: true }, params: { batch_id: batch.id } });
      expect(patched.status).toBe(200);
    }
    return { batch, slot, unmatched: unmatched! };
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Export");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const response = await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 4 } });
    templateId = (await response.json()).id;
    canvas = sampleCanvas();
    expect((await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: templateId } })).status).toBe(200);
    roster = await createNamedClass(school, database, "10A/Ma1", [
      { first: "Chloé", last: "Dubois", sis: "UPN-A1" },
      { first: "Mateusz", last: "Łukasik", sis: "UPN-B2" },
      { first: "Zoë", last: "O’Brien", sis: null },
      { first: "Ana María", last: "de la Cruz", sis: "UPN-D4" },
      { first: "Ben", last: "Adams", sis: "UPN-E5" },
    ]);
  });

  describe("the contract's CSV", () => {
    it("is byte for byte what it was before the teacher's export: header, statuses, totals and names", async () => {
      const { batch, slot, unmatched } = await markedBatch();
      const [chloe, mateusz, zoe, ana, ben] = roster.students;
      const response = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="batch-${batch.id}.csv"; filename*=UTF-8''batch-${batch.id}.csv`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
      expect(new TextDecoder().decode(bytes)).toBe(
        [
          "student_name,student_id,status,1a,1b,2,total",
          `Ana María de la Cruz,${ana!.id},Absent,,,,`,
          `Ben Adams,${ben!.id},No scan yet,,,,`,
          `Chloé Dubois,${chloe!.id},Marked,3,1.5,4,8.5`,
          `Mateusz Łukasik,${mateusz!.id},Being marked (1 of 3),2,,,2`,
          `Zoë O’Brien,${zoe!.id},Not marked,,,,0`,
          ",,Needs a student,,,,0",
          "",
        ].join("\r\n"),
      );
      expect(slot(chloe!).id).not.toBe(unmatched.id);
    });

    it("is byte for byte what it was for an anonymous batch: script labels in script order, no ids", async () => {
      const { batch, slot, unmatched } = await markedBatch({ anonymous: true });
      const [chloe, mateusz, zoe, ana, ben] = roster.students;
      const rows = [
        [slot(ana!).script_number, "Absent,,,,"],
        [slot(ben!).script_number, "No scan yet,,,,"],
        [slot(chloe!).script_number, "Marked,3,1.5,4,8.5"],
        [slot(mateusz!).script_number, "Being marked (1 of 3),2,,,2"],
        [slot(zoe!).script_number, "Not marked,,,,0"],
        [unmatched.script_number, "Needs a student,,,,0"],
      ] as const;
      const expected = [...rows].sort((a, b) => a[0] - b[0]).map(([number, rest]) => `Script ${number},,${rest}`);
      const response = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } });
      expect(await response.text()).toBe(["student_name,student_id,status,1a,1b,2,total", ...expected, ""].join("\r\n"));
      const revealed = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id }, path: `/api/exam/batches/${batch.id}/csv?reveal_names=true` });
      expect((await revealed.text()).split("\r\n")[1]).toBe(`Ana María de la Cruz,${ana!.id},Absent,,,,`);
      expect((await callRest(csvRoute, { token: otherSchool.teacher.token, params: { batch_id: batch.id } })).status).toBe(404);
    });
  });
});
