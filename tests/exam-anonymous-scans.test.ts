/**
 * Anonymous marking, the scans (issue 19): in an anonymous batch the scan a marker downloads holds no
 * pixel of the name written in the name box. The scans here are what copiers make (a page that is one
 * JPEG), with a dark "name" in the name box and a dark answer elsewhere: the served PDF must not contain
 * the scan's image, its name box must render as the cover, and the answer must still be there.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { PDFDocument, degrees } from "pdf-lib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { GET as pageImageRoute } from "../app/api/exam/scan-pages/[page_id]/image/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { examTemplates } from "../server/db/schema";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { nameBoxCrop } from "../server/exam/intake/imaging/pile";
import { redactScript, redactedPageImage } from "../server/exam/intake/imaging/redact";
import { processScanPile } from "../server/exam/intake/pile-job";
import { renderPageGrey } from "../server/exam/intake/imaging/pdfjs";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { pagesOfPile, postPile, printedBatch } from "./support/intake-fixtures";
import { imagingDouble, testPile } from "./support/intake-imaging-double";

/** Page-relative, origin top left: where the template says the name is written. */
const NAME_BOX = { page: 1, x: 0.55, y: 0.04, width: 0.4, height: 0.08 };
/** Where an answer is written, well away from the name box. */
const ANSWER = { x: 0.1, y: 0.5, width: 0.3, height: 0.1 };
const PAGE_PIXELS = { width: 620, height: 877 };

/** A scanner's page: white paper, a dark name in the name box and a dark answer, as one JPEG. */
async function scannedPageJpeg(shade = 0): Promise<Buffer> {
  const { width, height } = PAGE_PIXELS;
  const pixels = Buffer.alloc(width * height, 255);
  const paint = (rect: { x: number; y: number; width: number; height: number }, value: number) => {
    for (let row = Math.round(rect.y * height); row < Math.round((rect.y + rect.height) * height); row++) {
      pixels.fill(value, row * width + Math.round(rect.x * width), row * width + Math.round((rect.x + rect.width) * width));
    }
  };
  // The "name": dark strokes inside the box, as handwriting leaves them.
  paint({ x: NAME_BOX.x + 0.02, y: NAME_BOX.y + 0.02, width: NAME_BOX.width - 0.04, height: NAME_BOX.height - 0.04 }, shade);
  paint(ANSWER, 40);
  return sharp(pixels, { raw: { width, height, channels: 1 } }).jpeg({ quality: 90 }).toBuffer();
}

/** A two-page scan: page 1 the scanned JPEG (shown turned by `rotation`), page 2 another JPEG. */
async function scanPdf(rotation = 0) {
  const document = await PDFDocument.create();
  const first = await scannedPageJpeg();
  const second = await scannedPageJpeg(90);
  for (const [jpeg, turn] of [
    [first, rotation],
    [second, 0],
  ] as const) {
    const image = await document.embedJpg(jpeg);
    // The JPEG lies as scanned; the page's /Rotate shows it upright. A 90° page is scanned sideways.
    const [width, height] = turn % 180 === 0 ? [595, 842] : [842, 595];
    const page = document.addPage([width, height]);
    page.drawImage(image, { x: 0, y: 0, width, height });
    page.setRotation(degrees(turn));
  }
  return { pdf: await document.save(), first, second };
}

/** The mean grey of a page-relative rectangle of page `page` as shown (rendered by pdfjs). */
async function meanGrey(pdf: Uint8Array, page: number, rect: { x: number; y: number; width: number; height: number }) {
  const image = (await renderPageShown(pdf, page));
  let sum = 0;
  let count = 0;
  for (let row = Math.ceil(rect.y * image.height); row < Math.floor((rect.y + rect.height) * image.height); row++) {
    for (let column = Math.ceil(rect.x * image.width); column < Math.floor((rect.x + rect.width) * image.width); column++) {
      sum += image.data[row * image.width + column]!;
      count++;
    }
  }
  return sum / count;
}

/** A page rendered as shown: pdfjs renders unrotated, so a page's /Rotate is applied here. */
async function renderPageShown(pdf: Uint8Array, page: number) {
  const document = await PDFDocument.load(pdf);
  const angle = document.getPage(page - 1).getRotation().angle % 360;
  const image = (await renderPageGrey(pdf, page, 48))!;
  if (angle === 0) return image;
  const turned = await sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 1 } }).rotate(angle).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(turned.data), width: turned.info.width, height: turned.info.height };
}

const holds = (pdf: Uint8Array, bytes: Buffer) => Buffer.from(pdf).indexOf(bytes) >= 0;
const inner = (rect: typeof NAME_BOX) => ({ x: rect.x + 0.03, y: rect.y + 0.025, width: rect.width - 0.06, height: rect.height - 0.05 });

describe("redactScript", () => {
  it("replaces every page with a picture of itself in which the name is painted over, and leaves the answers", async () => {
    const { pdf, first, second } = await scanPdf();
    expect(await meanGrey(pdf, 1, inner(NAME_BOX))).toBeLessThan(30);
    const redacted = await redactScript(pdf, [NAME_BOX]);
    expect(holds(pdf, first)).toBe(true);
    expect(holds(redacted, first)).toBe(false);
    // Page 2 is a picture too (no byte of the scan's own image), its answer and its "name" (no cover there) still shown.
    expect(holds(redacted, second)).toBe(false);
    expect(await meanGrey(redacted, 2, inner(NAME_BOX))).toBeLessThan(120);
    expect((await PDFDocument.load(redacted)).getPageCount()).toBe(2);
    expect(Math.abs((await meanGrey(redacted, 1, inner(NAME_BOX))) - 128)).toBeLessThan(6);
    expect(await meanGrey(redacted, 1, ANSWER)).toBeLessThan(70);
    expect(await meanGrey(redacted, 1, { x: 0.1, y: 0.8, width: 0.3, height: 0.1 })).toBeGreaterThan(240);
  });

  it("finds the name box on a page shown turned (/Rotate), where the teacher drew it", async () => {
    const { pdf, first } = await scanPdf(90);
    const redacted = await redactScript(pdf, [NAME_BOX]);
    const page = (await PDFDocument.load(redacted)).getPage(0);
    expect(page.getRotation().angle % 360).toBe(0);
    expect(page.getSize()).toEqual({ width: 595, height: 842 });
    expect(holds(redacted, first)).toBe(false);
    expect(Math.abs((await meanGrey(redacted, 1, inner(NAME_BOX))) - 128)).toBeLessThan(6);
  });

  it("refuses a scan it cannot read with a 409 that says why, rather than show it whole", async () => {
    const unreadable = new TextEncoder().encode("%PDF-1.7\n% not a PDF after all\n%%EOF\n");
    await expect(redactScript(unreadable, [NAME_BOX])).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("cannot be hidden") });
    await expect(redactedPageImage(unreadable, 0, [NAME_BOX])).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("cannot be hidden") });
  });

  it("paints a cover of page 0 on every page", async () => {
    const { pdf } = await scanPdf();
    const redacted = await redactScript(pdf, [{ ...NAME_BOX, page: 0 }]);
    for (const page of [1, 2]) expect(Math.abs((await meanGrey(redacted, page, inner(NAME_BOX))) - 128)).toBeLessThan(6);
  });
});

describeOnEachDatabase("anonymous batches serve their scans without the name", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let batchId: string;
  let submissionId: string;
  let scan: Awaited<ReturnType<typeof scanPdf>>;

  const getScan = (token: string) => callRest(scanRoute, { token, params: { submission_id: submissionId } });
  const setAnonymous = (anonymous: boolean) => callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous }, params: { batch_id: batchId } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-anonymous-scans-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(imagingDouble());
    school = await createSchool(database().db, "Anonymous scans");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 2 } })).json();
    await asService(database().db, (tx) => tx.update(examTemplates).set({ name_box: NAME_BOX }).where(eq(examTemplates.id, template.id)));
    const roster = await createClassWithStudents(database().db, school, 1);
    batchId = (await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id } })).json()).id;
    scan = await scanPdf();
    const uploaded = await uploadScanInOrder(school.teacher.token, batchId, scan.pdf);
    expect(uploaded.status).toBe(200);
    submissionId = (await uploaded.json()).id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("serves the scan as uploaded while the batch is not anonymous, and without the name once it is, to a colleague and to the owner", async () => {
    const plain = await getScan(school.otherTeacher.token);
    expect(plain.status).toBe(200);
    expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(scan.pdf))).toBe(true);

    expect((await setAnonymous(true)).status).toBe(200);
    for (const reader of [school.otherTeacher, school.teacher]) {
      const response = await getScan(reader.token);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/pdf");
      const served = new Uint8Array(await response.arrayBuffer());
      expect(Number(response.headers.get("content-length"))).toBe(served.byteLength);
      expect(holds(served, scan.first)).toBe(false);
      expect(holds(served, scan.second)).toBe(false);
      expect(Math.abs((await meanGrey(served, 1, inner(NAME_BOX))) - 128)).toBeLessThan(6);
      expect(await meanGrey(served, 1, ANSWER)).toBeLessThan(70);
    }
    // Made once, kept beside the scan for the next marker.
    const kept = fs.readdirSync(storageRoot, { recursive: true }).map(String).filter((name) => name.includes(".anonymous-"));
    expect(kept).toHaveLength(1);

    expect((await setAnonymous(false)).status).toBe(200);
    const again = await getScan(school.otherTeacher.token);
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(scan.pdf))).toBe(true);
  });

  it("answers 404 to another school's teacher and to a student, anonymous or not", async () => {
    for (const anonymous of [true, false]) {
      expect((await setAnonymous(anonymous)).status).toBe(200);
      for (const token of [otherSchool.teacher.token, school.student.token]) {
        const response = await getScan(token);
        expect(response.status).toBe(404);
        expect((await response.json()).detail).toBe("Scan not found");
      }
    }
  });
});

describeOnEachDatabase("anonymous batches show their scanned pages without the name to markers", (database) => {
  let school: School;
  let storageRoot: string;

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-anonymous-pages-"));
    useObjectStorage(createLocalStorage(storageRoot));
    // The stand-in files pages by their codes; the page images are the real imaging's.
    setIntakeImaging({ ...imagingDouble(), nameBoxCrop, redactedPageImage });
    school = await createSchool(database().db, "Anonymous pages");
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** The mean grey of a page-relative rectangle of a JPEG. */
  async function jpegMeanGrey(jpeg: Buffer, rect: { x: number; y: number; width: number; height: number }) {
    const { data, info } = await sharp(jpeg).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
    let sum = 0;
    let count = 0;
    for (let row = Math.ceil(rect.y * info.height); row < Math.floor((rect.y + rect.height) * info.height); row++) {
      for (let column = Math.ceil(rect.x * info.width); column < Math.floor((rect.x + rect.width) * info.width); column++) {
        sum += data[row * info.width + column]!;
        count++;
      }
    }
    return sum / count;
  }

  it("paints the name box of a name page, or of a page not read, for a colleague; never for the owner; and leaves the other pages", async () => {
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 2 } })).json();
    await asService(database().db, (tx) => tx.update(examTemplates).set({ name_box: NAME_BOX }).where(eq(examTemplates.id, template.id)));
    const printed = await printedBatch(database().db, school, template.id, { students: 1, spares: 0 });
    const pile = await postPile(
      school.teacher.token,
      printed.batch.id,
      await testPile([
        { label: "s1p1", code: printed.code(1, 1) },
        { label: "s1p2", code: printed.code(1, 2) },
        { label: "unread", code: null },
      ]),
    );
    expect(pile.status).toBe(202);
    const pileId = ((await pile.json()) as { id: string }).id;
    await processScanPile(database().db, pileId, imagingDouble());
    const pages = new Map((await pagesOfPile(database().db, pileId)).map((page) => [page.pile_page, page.id]));
    expect((await setAnonymousBatch(printed.batch.id, true)).status).toBe(200);

    const boxGrey = async (token: string, pilePage: number) => {
      const response = await callRest(pageImageRoute, { token, params: { page_id: pages.get(pilePage)! } });
      expect(response.status).toBe(200);
      // The headers the image always sent (exam.intake.scanPageImage's `respond`): pages can move between scripts.
      expect(response.headers.get("content-type")).toBe("image/jpeg");
      expect(response.headers.get("content-length")).toBe(String((await response.clone().arrayBuffer()).byteLength));
      expect(response.headers.get("cache-control")).toBe("private, max-age=60");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      return jpegMeanGrey(Buffer.from(await response.arrayBuffer()), inner(NAME_BOX));
    };
    const covered = (grey: number) => Math.abs(grey - 128) < 6;
    expect(covered(await boxGrey(school.otherTeacher.token, 1))).toBe(true);
    expect(covered(await boxGrey(school.otherTeacher.token, 3))).toBe(true);
    expect(covered(await boxGrey(school.otherTeacher.token, 2))).toBe(false);
    expect(covered(await boxGrey(school.teacher.token, 1))).toBe(false);
    expect((await setAnonymousBatch(printed.batch.id, false)).status).toBe(200);
    expect(covered(await boxGrey(school.otherTeacher.token, 1))).toBe(false);
  });

  const setAnonymousBatch = (batchId: string, anonymous: boolean) =>
    callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous }, params: { batch_id: batchId } });
});
