import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, multipartBody, pdfBytes, sampleCanvas, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("exam submission scans", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let batchId: string;
  let scannedId: string;
  let absentId: string;
  let templateId: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  const scanBytes = pdfBytes(3000);

  const getScan = (submissionId: string, token?: string) => callRest(scanRoute, { token, params: { submission_id: submissionId } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-scan-files-"));
    useObjectStorage(createLocalStorage(storageRoot));
    school = await createSchool(database().db, "Scan files");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 3 } })).json();
    templateId = template.id;
    canvas = sampleCanvas();
    await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: templateId } });
    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await (
      await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id } })
    ).json();
    batchId = batch.id;
    const uploaded = await uploadScanInOrder(school.teacher.token, batchId, scanBytes);
    expect(uploaded.status).toBe(200);
    scannedId = (await uploaded.json()).id;
    const queue = await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batchId } })).json();
    absentId = queue.submissions.find((s: { status: string }) => s.status === "absent").id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("streams the owner's scan back byte for byte as a PDF", async () => {
    const response = await getScan(scannedId, school.teacher.token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-length")).toBe(String(scanBytes.byteLength));
    // The headers the download always sent (exam.submissions.downloadScan's `respond`): a later upload may replace the scan.
    expect(response.headers.get("content-disposition")).toBe("inline");
    expect(response.headers.get("cache-control")).toBe("private, max-age=60");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(scanBytes))).toBe(true);
  });

  it("lets a colleague of the same school read it (batches are readable by the institute's staff)", async () => {
    expect((await getScan(scannedId, school.otherTeacher.token)).status).toBe(200);
  });

  it("answers 404 to another school's teacher and to a student, without telling them it exists", async () => {
    for (const token of [otherSchool.teacher.token, school.student.token]) {
      const response = await getScan(scannedId, token);
      expect(response.status).toBe(404);
      expect((await response.json()).detail).toBe("Scan not found");
    }
  });

  it("answers 404 for an unknown id, a malformed id, and a submission without a scan", async () => {
    expect((await getScan(crypto.randomUUID(), school.teacher.token)).status).toBe(404);
    expect((await getScan("not-a-uuid", school.teacher.token)).status).toBe(404);
    const absent = await getScan(absentId, school.teacher.token);
    expect(absent.status).toBe(404);
    expect((await absent.json()).detail).toBe("Scan not found");
  });

  it("answers 404 when the stored file has gone missing", async () => {
    const form = multipartBody([{ name: "matching_method", value: "ordered" }, { name: "file", filename: "two.pdf", bytes: pdfBytes() }]);
    const uploaded = await scansRoute(
      new Request(`http://localhost/x`, { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType }, body: form.body }),
      { params: Promise.resolve({ batch_id: batchId }) },
    );
    const submission = await uploaded.json();
    fs.rmSync(path.join(storageRoot, "cc.exam.submissions", submission.scan_url));
    expect((await getScan(submission.id, school.teacher.token)).status).toBe(404);
  });

  it("refuses a request without credentials with 401", async () => {
    expect((await getScan(scannedId)).status).toBe(401);
  });

  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  it("batches.overview lists each batch with template title, class name and progress, archived only on request", async () => {
    const roster = await createClassWithStudents(database().db, school, 3);
    const batch = await as(school.teacher).exam.batches.create({ template_id: templateId, class_id: roster.class.id, title: "Overview batch" });
    const form = multipartBody([{ name: "matching_method", value: "ordered" }, { name: "file", filename: "s.pdf", bytes: pdfBytes() }]);
    await scansRoute(
      new Request("http://localhost/x", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType }, body: form.body }),
      { params: Promise.resolve({ batch_id: batch.id }) },
    );
    const { batches } = await as(school.otherTeacher).exam.batches.overview();
    const row = batches.find((b) => b.id === batch.id)!;
    expect(row).toMatchObject({ title: "Overview batch", template_title: "Mock", class_name: roster.class.name, progress: { total: 3, absent: 2, in_progress: 1, complete: 0 } });
    expect(batches.map((b) => b.created_at.getTime())).toEqual([...batches.map((b) => b.created_at.getTime())].sort((a, b) => b - a));

    expect((await as(otherSchool.teacher).exam.batches.overview()).batches.some((b) => b.id === batch.id)).toBe(false);
    await as(school.teacher).exam.batches.archive({ batch_id: batch.id });
    expect((await as(school.teacher).exam.batches.overview()).batches.some((b) => b.id === batch.id)).toBe(false);
    expect((await as(school.teacher).exam.batches.overview({ include_archived: true })).batches.find((b) => b.id === batch.id)?.status).toBe("archived");
  });

  it("marks.forSubmission returns the submission's recorded marks to staff, NOT_FOUND to others", async () => {
    const markId = crypto.randomUUID();
    await as(school.teacher).exam.marks.upsert({
      mark_id: markId,
      body: { submission_id: scannedId, question_id: canvas.ids.q1a, awarded_marks: 2.5, comment: "Good method", confirmed: true },
    });
    const read = await as(school.otherTeacher).exam.marks.forSubmission({ submission_id: scannedId });
    expect(read.submission).toMatchObject({ id: scannedId, status: "matched" });
    expect(read.marks).toEqual([expect.objectContaining({ id: markId, question_id: canvas.ids.q1a, awarded_marks: 2.5, comment: "Good method", confirmed: true })]);
    expect((await as(school.teacher).exam.marks.forSubmission({ submission_id: absentId })).marks).toEqual([]);
    for (const user of [otherSchool.teacher, school.student]) {
      await expect(as(user).exam.marks.forSubmission({ submission_id: scannedId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    await expect(as(school.teacher).exam.marks.forSubmission({ submission_id: crypto.randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
