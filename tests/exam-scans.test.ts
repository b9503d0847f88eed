import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as archiveRoute } from "../app/api/exam/batches/[batch_id]/archive/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { examBatches, examSubmissions, files } from "../server/db/schema";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, useObjectStorage } from "../server/storage/object-storage";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { pdfFormAroundBlanks, streamedBody } from "./support/streamed-body";

const BUCKET = "cc.exam.submissions";

describeOnEachDatabase("exam scans", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let storageRoot: string;
  let storage: ObjectStorage;

  const storedFiles = () => {
    const folder = path.join(storageRoot, BUCKET);
    return fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).filter((f) => f.endsWith(".pdf")) : [];
  };

  async function newBatch(students: number) {
    const roster = await createClassWithStudents(database().db, school, students);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: templateId, class_id: roster.class.id } })).json();
    return { batch, roster };
  }

  function upload(token: string, batchId: string, form: ReturnType<typeof multipartBody>, init: { contentLength?: boolean } = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": form.contentType };
    if (init.contentLength !== false) headers["content-length"] = String(form.body.length);
    const request = new Request(`http://localhost/api/exam/batches/${batchId}/scans`, { method: "POST", headers, body: form.body });
    return scansRoute(request, { params: Promise.resolve({ batch_id: batchId }) });
  }

  const scan = (fields: Record<string, string> = {}, file: Partial<{ bytes: Uint8Array; contentType: string }> = {}) =>
    multipartBody([
      ...Object.entries(fields).map(([name, value]) => ({ name, value })),
      { name: "file", filename: "scan.pdf", bytes: file.bytes ?? pdfBytes(), contentType: file.contentType },
    ]);

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-scans-"));
    storage = createLocalStorage(storageRoot);
    useObjectStorage(storage);
    school = await createSchool(database().db, "Scans");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 4 } })).json();
    templateId = template.id;
    await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: sampleCanvas(), params: { template_id: templateId } });
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  describe("rules in order", () => {
    it("1: answers 404 outside the caller's scope, 403 to a colleague, 409 on an archived batch", async () => {
      const { batch } = await newBatch(1);
      expect((await upload(otherSchool.teacher.token, batch.id, scan())).status).toBe(404);
      expect((await upload(school.student.token, batch.id, scan())).status).toBe(404);
      expect((await upload(school.teacher.token, crypto.randomUUID(), scan())).status).toBe(404);
      const colleague = await upload(school.otherTeacher.token, batch.id, scan());
      expect(colleague.status).toBe(403);
      await callRest(archiveRoute, { method: "POST", token: school.teacher.token, params: { batch_id: batch.id } });
      const archived = await upload(school.teacher.token, batch.id, scan());
      expect(archived.status).toBe(409);
      expect((await archived.json()).detail).toMatch(/archived/);
    });

    it("2: refuses a file declared as anything but a PDF (415), and a non-multipart body (415)", async () => {
      const { batch } = await newBatch(1);
      const before = storedFiles().length;
      expect((await upload(school.teacher.token, batch.id, scan({}, { contentType: "image/png" }))).status).toBe(415);
      expect((await upload(school.teacher.token, batch.id, scan({}, { contentType: "" }))).status).toBe(415);
      expect((await upload(school.teacher.token, batch.id, scan({}, { contentType: "application/x-pdf" }))).status).toBe(201);
      const raw = await scansRoute(
        new Request("http://localhost/x", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": "application/pdf" }, body: Buffer.from(pdfBytes()) }),
        { params: Promise.resolve({ batch_id: batch.id }) },
      );
      expect(raw.status).toBe(415);
      expect(storedFiles().length).toBe(before + 1);
    });

    it("3: refuses a 60 MB upload with 413 while streaming, cancelling the sender's stream early", async () => {
      const { batch } = await newBatch(1);
      const form = pdfFormAroundBlanks();
      const { body, sent, cancelled } = streamedBody(form.head, 60 * 1024 * 1024, form.tail);
      const request = new Request(`http://localhost/api/exam/batches/${batch.id}/scans`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType },
        body,
        duplex: "half",
      } as RequestInit);
      const before = storedFiles().length;
      const response = await scansRoute(request, { params: Promise.resolve({ batch_id: batch.id }) });
      expect(response.status).toBe(413);
      expect(cancelled()).toBe(true);
      // Read no further than the limit plus a little buffering: the rest of the 60 MB was never pulled.
      expect(sent()).toBeLessThan(52428800 + 1024 * 1024);
      expect(storedFiles().length).toBe(before);
      expect(fs.readdirSync(path.join(storageRoot, BUCKET), { recursive: true }).map(String).filter((f) => f.includes(".tmp-"))).toEqual([]);
    });

    it("3: refuses at once a declared Content-Length over the limit", async () => {
      const { batch } = await newBatch(1);
      const form = scan();
      const request = new Request(`http://localhost/x`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType, "content-length": String(60 * 1024 * 1024) },
        body: form.body,
      });
      expect((await scansRoute(request, { params: Promise.resolve({ batch_id: batch.id }) })).status).toBe(413);
    });

    it("4: refuses a body declared as PDF that is not one (415), storing nothing", async () => {
      const { batch } = await newBatch(1);
      const before = storedFiles().length;
      const response = await upload(school.teacher.token, batch.id, scan({}, { bytes: Buffer.from("GIF89a not a pdf at all") }));
      expect(response.status).toBe(415);
      expect((await response.json()).detail).toBe("The scan is not a PDF file: it may be damaged, or another kind of file renamed .pdf");
      expect((await upload(school.teacher.token, batch.id, scan({}, { bytes: Buffer.from("%PD") }))).status).toBe(415);
      expect(storedFiles().length).toBe(before);
    });

    it("5: answers 502 when storage fails, changing no submission", async () => {
      const { batch } = await newBatch(1);
      useObjectStorage({ ...storage, put: async () => Promise.reject(new Error("disk on fire")) });
      try {
        const response = await upload(school.teacher.token, batch.id, scan({ matching_method: "ordered" }));
        expect(response.status).toBe(502);
        expect((await response.json()).detail).not.toMatch(/fire/);
      } finally {
        useObjectStorage(storage);
      }
      const rows = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
      expect(rows.map((r) => [r.status, r.scan_url])).toEqual([["absent", null]]);
    });
    it("deletes the stored file when the database write after it fails (nothing orphaned)", async () => {
      const { batch } = await newBatch(1);
      const before = storedFiles().length;
      // The batch is archived while the file is being stored: the recording transaction then refuses.
      useObjectStorage({
        ...storage,
        put: async (bucket, key, body, options) => {
          const stored = await storage.put(bucket, key, body, options);
          await asService(database().db, (tx) => tx.update(examBatches).set({ status: "archived" }).where(eq(examBatches.id, batch.id)));
          return stored;
        },
      });
      try {
        const response = await upload(school.teacher.token, batch.id, scan({ matching_method: "ordered" }));
        expect(response.status).toBe(409);
      } finally {
        useObjectStorage(storage);
      }
      expect(storedFiles().length).toBe(before);
      const rows = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
      expect(rows.map((r) => [r.status, r.scan_url])).toEqual([["absent", null]]);
    });
  });

  describe("matching", () => {
    it("manual with student_id matches that student's submission and writes the scan fields", async () => {
      const { batch, roster } = await newBatch(2);
      const student = roster.students[1]!;
      const response = await upload(school.teacher.token, batch.id, scan({ student_id: student.id }));
      expect(response.status).toBe(200);
      const submission = await response.json();
      expect(submission).toMatchObject({ batch_id: batch.id, student_id: student.id, status: "matched", qr_code: null, matching_method: "manual", page_count: null });
      expect(submission.scan_url).toMatch(new RegExp(`^exam-submissions/${batch.id}/[0-9a-f-]{36}\\.pdf$`));
      const stored = await storage.get(BUCKET, submission.scan_url);
      expect(Buffer.from(await new Response(stored).arrayBuffer())).toEqual(Buffer.from(pdfBytes()));
      const [file] = await asService(database().db, (tx) => tx.select().from(files).where(eq(files.storage_key, submission.scan_url)));
      expect(file).toMatchObject({ bucket: BUCKET, byte_size: 2048, content_type: "application/pdf", institute_id: school.institute.id });
    });

    it("without a match (manual without student_id, or nobody pending) creates an unmatched submission (201)", async () => {
      const { batch } = await newBatch(1);
      const manual = await upload(school.teacher.token, batch.id, scan());
      expect(manual.status).toBe(201);
      expect(await manual.json()).toMatchObject({ status: "unmatched", student_id: null, matching_method: "manual" });
      expect((await upload(school.teacher.token, batch.id, scan({ matching_method: "ordered" }))).status).toBe(200);
      const overflow = await upload(school.teacher.token, batch.id, scan({ matching_method: "ordered" }));
      expect(overflow.status).toBe(201);
      expect((await overflow.json()).status).toBe("unmatched");
      const queue = await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).json();
      expect(queue.submissions.map((s: { status: string }) => s.status).sort()).toEqual(["matched", "unmatched", "unmatched"]);
    });

    it("answers 400 for a bad matching_method or a missing file, and deletes the stored file", async () => {
      const { batch } = await newBatch(1);
      const before = storedFiles().length;
      const bad = await upload(school.teacher.token, batch.id, multipartBody([{ name: "file", filename: "a.pdf", bytes: pdfBytes() }, { name: "matching_method", value: "qr" }]));
      expect(bad.status).toBe(400);
      expect((await bad.json()).detail).toBe("Matching method: must be manual or ordered");
      expect(storedFiles().length).toBe(before);
      const none = await upload(school.teacher.token, batch.id, multipartBody([{ name: "student_id", value: crypto.randomUUID() }]));
      expect(none.status).toBe(400);
      expect((await none.json()).detail).toMatch(/file/);
    });

    it("20 concurrent ordered uploads into 20 absent submissions match each exactly once", async () => {
      const { batch } = await newBatch(20);
      const responses = await Promise.all(Array.from({ length: 20 }, () => upload(school.teacher.token, batch.id, scan({ matching_method: "ordered" }))));
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      const bodies = await Promise.all(responses.map((r) => r.json()));
      expect(new Set(bodies.map((b) => b.id)).size).toBe(20);
      const rows = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
      expect(rows).toHaveLength(20);
      expect(rows.every((row) => row.status === "matched" && row.matching_method === "ordered" && row.scan_url)).toBe(true);
      expect(new Set(rows.map((row) => row.scan_url)).size).toBe(20);
    });
  });
});
