import { eq } from "drizzle-orm";
import { POST as pilesRoute } from "../../app/api/exam/batches/[batch_id]/piles/route";
import { POST as filesRoute } from "../../app/api/exam/files/route";
import { generateDemoPaper } from "../../server/exam/demo-paper/pdf";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { examBatches, examPrintedScripts, examScanPages, examScanPiles, examSubmissions } from "../../server/db/schema";
import { createBatch } from "../../server/exam/batches";
import { encodePageCode, newBatchCode } from "../../server/exam/intake/print-code";
import { createClassWithStudents, multipartBody } from "./exam-fixtures";
import type { School } from "./fixtures";

/**
 * A batch as the print step leaves it (the print helper's code is not what these tests are about): a
 * batch code, and scripts 1…students printed for the roster in name order, then `spares` spare copies.
 */
export async function printedBatch(db: Db, school: School, templateId: string, { students = 3, spares = 1 } = {}) {
  const roster = await createClassWithStudents(db, school, students);
  const batch = await createBatch(db, school.teacher.id, { template_id: templateId, class_id: roster.class.id });
  const batchCode = newBatchCode();
  const slots = await asService(db, async (tx) => {
    await tx.update(examBatches).set({ print_code: batchCode }).where(eq(examBatches.id, batch.id));
    const rows = await tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id));
    const inOrder = roster.students.map((student) => rows.find((row) => row.student_id === student.id)!);
    await tx.insert(examPrintedScripts).values([
      ...inOrder.map((row, index) => ({ batch_id: batch.id, script_number: index + 1, submission_id: row.id })),
      ...Array.from({ length: spares }, (_, index) => ({ batch_id: batch.id, script_number: students + index + 1, submission_id: null })),
    ]);
    return inOrder;
  });
  /** The code printed on page `page` of script `script`. */
  const code = (script: number, page: number) => encodePageCode({ batchCode, scriptNumber: script, page });
  return { batch, batchCode, roster, slots, code };
}

/** POST /api/exam/batches/{batch_id}/piles with one PDF, as the browser sends it. */
export function postPile(token: string, batchId: string, bytes: Uint8Array, { filename = "pile.pdf", contentType }: { filename?: string; contentType?: string } = {}) {
  const form = multipartBody([{ name: "file", filename, bytes, contentType }]);
  const request = new Request(`http://localhost/api/exam/batches/${batchId}/piles`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
    body: form.body,
  });
  return pilesRoute(request, { params: Promise.resolve({ batch_id: batchId }) });
}

/** Every page of a pile, in pile order, as stored. */
export const pagesOfPile = (db: Db, pileId: string) =>
  asService(db, (tx) => tx.select().from(examScanPages).where(eq(examScanPages.pile_id, pileId)).orderBy(examScanPages.pile_page));

export const pileRow = async (db: Db, pileId: string) => (await asService(db, (tx) => tx.select().from(examScanPiles).where(eq(examScanPiles.id, pileId))))[0]!;

export const submissionRow = async (db: Db, submissionId: string) =>
  (await asService(db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId))))[0];

/** The demo paper uploaded by the school's teacher (POST /api/exam/files), for templates that print: its file id and pages. */
/** POST /api/exam/files: a paper's PDF uploaded as the teacher of `token`; its file id (201, or the test fails with the answer). */
export async function uploadPaperFile(token: string, bytes: Uint8Array, filename = "paper.pdf"): Promise<string> {
  const form = multipartBody([{ name: "file", filename, bytes }]);
  const uploaded = await filesRoute(
    new Request("http://localhost/api/exam/files", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
      body: form.body,
    }),
  );
  if (uploaded.status !== 201) throw new Error(`${filename} was not uploaded: ${uploaded.status} ${await uploaded.text()}`);
  return ((await uploaded.json()) as { id: string }).id;
}

export async function uploadDemoPaper(school: School): Promise<{ fileId: string; pageCount: number }> {
  const paper = await generateDemoPaper();
  return { fileId: await uploadPaperFile(school.teacher.token, paper.bytes), pageCount: paper.pageCount };
}
