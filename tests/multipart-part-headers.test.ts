/**
 * Part headers over the limit are refused (issue 14, item 8) by the multipart reader, on both of its
 * uploads: the exam's (template PDFs and scans) and the speech API's (/v1 audio). The headers arrive in
 * one piece together with their end, which is how a long header block used to slip past the limit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as uploadRoute } from "../app/api/exam/files/route";
import { type Database, useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { MAX_PART_HEADER_BYTES } from "../server/http/multipart-part-headers";
import { createApiKey } from "../server/identity/api-keys";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createTestDatabase, describeOnEachDatabase } from "./support/database";
import { multipartBody } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { repeatedSpeechWav } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";

/** A filename that makes the part's header block exactly `headerBytes` long (with the lines below). */
function filenameForHeaderBytes(headerBytes: number) {
  const fixed = 'Content-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/pdf'.length;
  return `${"a".repeat(headerBytes - fixed - ".pdf".length)}.pdf`;
}

describeOnEachDatabase("multipart part headers (exam reader)", (database) => {
  let school: School;
  let storageRoot: string;
  let pdf: Uint8Array;

  beforeAll(async () => {
    const document = await PDFDocument.create();
    document.addPage([595, 842]);
    pdf = await document.save();
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-part-headers-"));
    useObjectStorage(createLocalStorage(storageRoot));
    school = await createSchool(database().db, "Part headers");
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  function upload(filename: string) {
    const form = multipartBody([{ name: "file", filename, bytes: pdf }]);
    return uploadRoute(
      new Request("http://localhost/api/exam/files", {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType },
        body: form.body,
      }),
    );
  }

  const storedPdfs = () => fs.readdirSync(storageRoot, { recursive: true }).map(String).filter((file) => file.endsWith(".pdf"));

  it("refuses a part whose headers are over the limit with 400 naming the problem, storing nothing", async () => {
    const response = await upload(filenameForHeaderBytes(MAX_PART_HEADER_BYTES + 1));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail: `The headers of a multipart part are longer than the limit of ${MAX_PART_HEADER_BYTES} bytes` });
    expect(storedPdfs()).toEqual([]);
  });

  it("accepts part headers of exactly the limit", async () => {
    const before = storedPdfs().length;
    const response = await upload(filenameForHeaderBytes(MAX_PART_HEADER_BYTES));
    expect(response.status).toBe(201);
    expect(storedPdfs()).toHaveLength(before + 1);
  });
});

describe.skipIf(!testModelAvailable)("multipart part headers (speech reader, through the openai client)", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let client: OpenAI;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    const { key } = await asService(database.db, (tx) => createApiKey(tx, { name: "part headers" }));
    server = await startSpeechServer(testSpeechConfig());
    client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0, timeout: 60_000 });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("refuses a file part whose headers are over the limit with 400 invalid_request_error", async () => {
    const file = await toFile(repeatedSpeechWav(1), `${"a".repeat(MAX_PART_HEADER_BYTES + 1)}.wav`);
    const error = await client.audio.transcriptions.create({ file, model: "tiny" }).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error" });
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/headers of a multipart part are longer than the limit/);
  });
});
