/**
 * A scan on S3 end to end: uploaded through the REST route with the storage configured as
 * STORAGE_DRIVER=s3 (on s3rver, logical buckets mapped by a prefix), then read back through the scan route.
 */
import crypto from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { parseEnv } from "../server/env";
import { openConfiguredStorage } from "../server/storage/configured-storage";
import { readObjectBytes, useObjectStorage } from "../server/storage/object-storage";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { type TestS3, startTestS3 } from "./support/s3";
import { pdfFormAroundBlanks, streamedBody } from "./support/streamed-body";

const SCAN_BLANKS = 12 * 1024 * 1024; // three 5 MB parts on S3

// A scan limit above SCAN_BLANKS and above several parts, set before anything reads the configuration.
const MAX_SCAN_BYTES = vi.hoisted(() => {
  process.env.MAX_SCAN_BYTES = String(20 * 1024 * 1024);
  return 20 * 1024 * 1024;
});

describeOnEachDatabase("scans stored on S3", (database) => {
  let s3: TestS3;
  let school: School;
  let otherSchool: School;
  let batchId: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    const config = parseEnv({ ...process.env, ...s3.env, STORAGE_S3_BUCKET_PREFIX: "node-", SEED_DEMO: "false" });
    await s3.createBuckets(Object.values(config.storage.driver === "s3" ? config.storage.buckets : {}));
    useObjectStorage(await openConfiguredStorage(config));
    school = await createSchool(database().db, "S3 scans");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 2 } })).json();
    const roster = await createClassWithStudents(database().db, school, 1);
    const batch = await (
      await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id } })
    ).json();
    batchId = batch.id;
  }, 60_000);
  afterAll(() => s3?.stop());

  const storedScans = async () => {
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: "node-cc.exam.submissions" }));
    return (listed.Contents ?? []).map((object) => object.Key).sort();
  };

  const upload = (body: ReadableStream<Uint8Array>, contentType: string) =>
    scansRoute(
      new Request(`http://localhost/api/exam/batches/${batchId}/scans`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": contentType },
        body,
        duplex: "half",
      } as RequestInit),
      { params: Promise.resolve({ batch_id: batchId }) },
    );

  it("streams a 12 MB scan into the mapped bucket through the upload route and back out through the scan route", async () => {
    const form = pdfFormAroundBlanks();
    const { body } = streamedBody(form.head, SCAN_BLANKS, form.tail);
    const uploaded = await upload(body, form.contentType);
    expect(uploaded.status).toBe(201); // a new unmatched submission (manual matching)
    const submission = await uploaded.json();

    const response = await callRest(scanRoute, { token: school.teacher.token, params: { submission_id: submission.id } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.byteLength).toBe(Number(response.headers.get("content-length")));
    expect(bytes.subarray(0, 9).toString("latin1")).toBe("%PDF-1.7\n");
    expect(bytes.byteLength).toBeGreaterThanOrEqual(SCAN_BLANKS);
    expect(bytes.subarray(9).every((byte) => byte === 0x20)).toBe(true);

    // The object is in the real bucket the prefix names, under the key the submission records.
    const direct = s3.storage({ raw: "node-cc.exam.submissions" });
    const stored = await readObjectBytes(direct, "raw", submission.scan_url);
    expect(crypto.createHash("sha256").update(stored).digest("hex")).toBe(crypto.createHash("sha256").update(bytes).digest("hex"));

    const elsewhere = await callRest(scanRoute, { token: otherSchool.teacher.token, params: { submission_id: submission.id } });
    expect(elsewhere.status).toBe(404);
  }, 120_000);

  it("refuses a scan over MAX_SCAN_BYTES with 413 after several parts went to S3, and keeps no object", async () => {
    const before = await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batchId } });
    const count = (await before.json()).submissions.length;
    const objectsBefore = await storedScans();
    const form = pdfFormAroundBlanks();
    const { body } = streamedBody(form.head, MAX_SCAN_BYTES + 4 * 1024 * 1024, form.tail);
    const refused = await upload(body, form.contentType);
    expect(refused.status).toBe(413);
    expect((await refused.json()).detail).toMatch(/^The scan is too large: the largest accepted is \d+ MB$/);
    const after = await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batchId } });
    expect((await after.json()).submissions.length).toBe(count);
    expect(await storedScans()).toEqual(objectsBefore);
  }, 120_000);
});
