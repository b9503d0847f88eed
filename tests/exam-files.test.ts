import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PDFDocument } from "pdf-lib";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as getFileRoute } from "../app/api/exam/files/[file_id]/route";
import { POST as uploadRoute } from "../app/api/exam/files/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { examSubmissions } from "../server/db/schema";
import { createCaller } from "../server/trpc/root";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, useObjectStorage } from "../server/storage/object-storage";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createCataloguePaper, createClassWithStudents, multipartBody, pdfBytes, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

const BUCKET = "cc.exam.submissions";

async function realPdf(pages: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  for (let page = 0; page < pages; page++) document.addPage([595, 842]);
  return document.save();
}

describeOnEachDatabase("exam template files", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let storage: ObjectStorage;

  const storedFiles = () => {
    const folder = path.join(storageRoot, BUCKET, "exam-templates");
    return fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).filter((f) => f.endsWith(".pdf")) : [];
  };

  function upload(token: string, file: { bytes: Uint8Array; contentType?: string; filename?: string }, query = "") {
    const form = multipartBody([{ name: "file", filename: file.filename ?? "paper.pdf", bytes: file.bytes, contentType: file.contentType }]);
    const request = new Request(`http://localhost/api/exam/files${query}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
      body: form.body,
    });
    return uploadRoute(request);
  }

  const download = (token: string, fileId: string) => callRest(getFileRoute, { token, params: { file_id: fileId } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-files-"));
    storage = createLocalStorage(storageRoot);
    useObjectStorage(storage);
    school = await createSchool(database().db, "Files");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("stores a PDF, counts its pages, and serves the same bytes back to the school", async () => {
    const bytes = await realPdf(3);
    const response = await upload(school.teacher.token, { bytes, filename: "Maths paper 1.pdf" });
    expect(response.status).toBe(201);
    const file = await response.json();
    expect(file).toMatchObject({ page_count: 3, original_name: "Maths paper 1.pdf", byte_size: bytes.byteLength, content_type: "application/pdf", institute_id: school.institute.id, owner_id: school.teacher.id });
    expect(file.sha256).toBe(crypto.createHash("sha256").update(bytes).digest("hex"));

    // A colleague of the same school reads it; the bytes are the ones uploaded.
    const served = await download(school.otherTeacher.token, file.id);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("application/pdf");
    // The headers the download always sent (its REST face says them in `respond`).
    expect(served.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(served.headers.get("content-disposition")).toBe('inline; filename="Maths paper 1.pdf"');
    expect(served.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);

    // The file can back a template.
    const template = await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "From upload", source_file_id: file.id, page_count: file.page_count } });
    expect(template.status).toBe(201);
  });

  it("answers 404 to another school, for an unknown id and for a malformed id", async () => {
    const file = await (await upload(school.teacher.token, { bytes: await realPdf(1) })).json();
    const other = await download(otherSchool.teacher.token, file.id);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ detail: "File not found" });
    expect((await download(school.teacher.token, crypto.randomUUID())).status).toBe(404);
    expect((await download(school.teacher.token, "not-a-uuid")).status).toBe(404);
    // Another school cannot build a template on it either (the file reads as unknown).
    const template = await callRest(postTemplate, { method: "POST", token: otherSchool.teacher.token, body: { title: "Borrowed", source_file_id: file.id } });
    expect(template.status).toBe(400);
  });

  it("serves no scan, to anyone of the school: its pages name students, and the scan routes apply the batch's rules", async () => {
    const owner = createCaller({ db: database().db, user: { id: school.teacher.id } });
    const template = await owner.exam.templates.create({ title: "Scanned", page_count: 1 });
    const roster = await createClassWithStudents(database().db, school, 1);
    const batch = await owner.exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    expect((await uploadScanInOrder(school.teacher.token, batch.id, await realPdf(1))).status).toBe(200);
    const [scan] = await asService(database().db, (tx) => tx.select({ fileId: examSubmissions.scan_file_id }).from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
    expect(scan?.fileId).toEqual(expect.any(String));
    for (const user of [school.teacher, school.otherTeacher, school.head]) {
      const reply = await download(user.token, scan!.fileId!);
      expect(reply.status).toBe(404);
      expect(await reply.json()).toEqual({ detail: "File not found" });
    }
  });

  it("refuses a non-PDF with 415 and stores nothing", async () => {
    const before = storedFiles().length;
    const declared = await upload(school.teacher.token, { bytes: Buffer.from("hello"), contentType: "text/plain", filename: "notes.txt" });
    expect(declared.status).toBe(415);
    expect((await declared.json()).detail).toBe("The paper must be a PDF file");
    const disguised = await upload(school.teacher.token, { bytes: Buffer.from("GIF89a not a pdf at all") });
    expect(disguised.status).toBe(415);
    expect((await disguised.json()).detail).toBe("The paper is not a PDF file: it may be damaged, or another kind of file renamed .pdf");
    const damaged = await upload(school.teacher.token, { bytes: pdfBytes(4096) });
    expect(damaged.status).toBe(415);
    expect((await damaged.json()).detail).toBe("The file is not a PDF that can be read: it is damaged or cut short. Export the paper as PDF again.");
    expect(storedFiles().length).toBe(before);
  });

  it("refuses a file over MAX_SCAN_BYTES with 413 and stores nothing", async () => {
    const before = storedFiles().length;
    const big = Buffer.concat([Buffer.from(await realPdf(1)), Buffer.alloc(52428800 + 10, 0x20)]);
    const response = await upload(school.teacher.token, { bytes: big });
    expect(response.status).toBe(413);
    expect(storedFiles().length).toBe(before);
  });

  it("lets only staff upload, to an institute they belong to", async () => {
    expect((await upload(school.student.token, { bytes: await realPdf(1) })).status).toBe(403);
    expect((await upload(school.teacher.token, { bytes: await realPdf(1) }, `?institute_id=${otherSchool.institute.id}`)).status).toBe(403);
    expect((await upload(school.teacher.token, { bytes: await realPdf(1) }, "?institute_id=nope")).status).toBe(400);
    const unauthenticated = await uploadRoute(new Request("http://localhost/api/exam/files", { method: "POST" }));
    expect(unauthenticated.status).toBe(401);
  });

  it("answers 415 to a body that is not multipart and 400 when the file field is missing", async () => {
    const json = await callRest(uploadRoute, { method: "POST", token: school.teacher.token, body: { file: "x" } });
    expect(json.status).toBe(415);
    const form = multipartBody([{ name: "title", value: "no file" }]);
    const response = await uploadRoute(
      new Request("http://localhost/api/exam/files", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType }, body: form.body }),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).detail).toMatch(/file/);
  });

  it("lists the catalogue papers to any signed-in user (exam.catalogue.list), and nobody else", async () => {
    const paper = await createCataloguePaper(database().db);
    const { papers } = await createCaller({ db: database().db, user: { id: otherSchool.teacher.id } }).exam.catalogue.list();
    expect(papers).toContainEqual(expect.objectContaining({ id: paper.id, exam_code: paper.exam_code, title: paper.title }));
    await expect(createCaller({ db: database().db, user: null }).exam.catalogue.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
