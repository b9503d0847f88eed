/**
 * Anonymity that holds on paper (issue 32): in an anonymous batch no name reaches a marker's browser in
 * any byte, not only in the JSON. A student with a name nothing else could spell ("Zoë Quill-Harrow")
 * has a script printed before the batch was made anonymous (its stamp names her), filed from a pile
 * that is the printed PDF itself (so every page carries the stamp's text as a text layer), and another
 * student's printed script is uploaded as a scan on its own. Then, for each marker (an invited marker, a
 * colleague, a head of department, the school's admin), every reply of the batch's reads is searched:
 * response bodies as text, the text layer and metadata of every PDF (pdfjs), and the pixels of the stamp's
 * place on every page image and scan, read back by OCR (tesseract.js, offline from node_modules). The
 * same OCR reads the name off the stamp of the batch before it is anonymous, so the test can fail. The
 * owner's refusals name scripts by number, and a print of the anonymous batch carries no name.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { PDFDocument, PDFName, PDFString } from "pdf-lib";
import sharp from "sharp";
import { type Worker as OcrWorker, createWorker } from "tesseract.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { GET as intakeRoute } from "../app/api/exam/batches/[batch_id]/intake/route";
import { GET as markerProgressRoute } from "../app/api/exam/batches/[batch_id]/marker-progress/route";
import { GET as myWorkRoute } from "../app/api/exam/batches/[batch_id]/my-work/route";
import { POST as printRoute } from "../app/api/exam/batches/[batch_id]/printed-scripts/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as resultsRoute } from "../app/api/exam/batches/[batch_id]/results/route";
import { GET as scanPagesRoute } from "../app/api/exam/batches/[batch_id]/scan-pages/route";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { GET as listBatchesRoute } from "../app/api/exam/batches/route";
import { GET as pageImageRoute } from "../app/api/exam/scan-pages/[page_id]/image/route";
import { POST as movePageRoute } from "../app/api/exam/scan-pages/[page_id]/move/route";
import { POST as assignRoute } from "../app/api/exam/submissions/[submission_id]/assign/route";
import { GET as nameCropRoute } from "../app/api/exam/submissions/[submission_id]/name-crop/route";
import { GET as answerCropRoute } from "../app/api/exam/submissions/[submission_id]/answer-crops/[response_area_id]/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { signUserToken } from "../server/auth/tokens";
import { demoPaperCanvas } from "../server/exam/demo-paper/canvas";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { readAnswersJob } from "../server/exam/answers/read-job";
import { runDueJobs } from "../server/jobs/run";
import { asService } from "../server/db/rls";
import { examBatches, examResponseAreas, examSubmissions, users } from "../server/db/schema";
import { createUser } from "../server/identity/users";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { nameBoxCrop } from "../server/exam/intake/imaging/pile";
import { type GreyImage, renderPageGrey } from "../server/exam/intake/imaging/pdfjs";
import { processScanPile } from "../server/exam/intake/pile-job";
import { encodePageCode } from "../server/exam/intake/print-code";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, multipartBody } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { imagingDouble } from "./support/intake-imaging-double";
import { pagesOfPile, postPile, uploadDemoPaper } from "./support/intake-fixtures";
import { pdfTextAndInfo } from "./support/pdf-text";

const ZOE = "Zoë Quill-Harrow";
const BART = "Bartholomew Ffolkes-Xu";
/** What must never be read: the names and each of their parts (accents folded, as OCR and the stamp may). */
const NAME_PARTS = ["Zoë Quill-Harrow", "Quill-Harrow", "Quill", "Harrow", "Zoë", "Bartholomew", "Ffolkes"];
/** The parts searched for, exactly, in the raw bytes of a PDF or a JPEG. */
const BINARY_PARTS = ["Quill-Harrow", "Quill", "Harrow", "Bartholomew", "Ffolkes"];
/** What OCR must never read on a stamp: the distinctive parts, lower case (OCR reads "ë" as "é" or "e"). */
const OCR_PARTS = ["quill", "harrow", "bartholomew", "ffolkes"];
const RENDER_DPI = 200;

const require = createRequire(import.meta.url);
let ocr: Promise<OcrWorker> | null = null;

/**
 * Tesseract from node_modules only: its worker script and WebAssembly core from tesseract.js and
 * tesseract.js-core, English from @tesseract.js-data/eng, nothing cached to disk, nothing fetched.
 */
function ocrWorker(): Promise<OcrWorker> {
  const eng = require("@tesseract.js-data/eng") as { langPath: string; gzip: boolean };
  ocr ??= createWorker("eng", 1, {
    langPath: eng.langPath,
    gzip: eng.gzip,
    workerPath: require.resolve("tesseract.js/src/worker-script/node/index.js"),
    corePath: path.dirname(require.resolve("tesseract.js-core/package.json")),
    cacheMethod: "none",
    logger: () => undefined,
    errorHandler: () => undefined,
  });
  return ocr;
}

/**
 * OCR of the four corners where a stamp can be (half the page's width, its top or bottom eighth), each
 * enlarged twice for the 8-point line, lower case.
 */
async function ocrStampBands(image: GreyImage): Promise<string> {
  const worker = await ocrWorker();
  const height = Math.round(image.height * 0.12);
  const width = Math.round(image.width / 2);
  let text = "";
  for (const top of [0, image.height - height]) {
    for (const left of [0, image.width - width]) {
      const crop = await sharp(Buffer.from(image.data), { raw: { width: image.width, height: image.height, channels: 1 } }).extract({ left, top, width, height }).png().toBuffer();
      const png = await sharp(crop).resize(width * 2, height * 2, { kernel: "cubic" }).withMetadata({ density: RENDER_DPI * 2 }).png().toBuffer();
      text += `${(await worker.recognize(png)).data.text}\n`;
    }
  }
  return text.toLowerCase();
}

/** Page 1 of a PDF as the marker's viewer draws it, OCR'd where a stamp can be. */
async function ocrPdfStamps(pdf: Uint8Array, dpi = RENDER_DPI): Promise<string> {
  return ocrStampBands((await renderPageGrey(pdf, 1, dpi))!);
}

async function ocrJpegStamps(jpeg: Uint8Array): Promise<string> {
  const { data, info } = await sharp(jpeg).toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
  return ocrStampBands({ data: new Uint8Array(data), width: info.width, height: info.height });
}

/** OCR of a whole image (an answer's crop: it may reach a stamp or the name box), enlarged twice, lower case. */
async function ocrWhole(image: Uint8Array): Promise<string> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const png = await sharp(image).greyscale().resize(width * 2, height * 2, { kernel: "cubic" }).png().toBuffer();
  return (await (await ocrWorker()).recognize(png)).data.text.toLowerCase();
}

/** The name parts a text holds, compared case-insensitively and with accents folded. */
function namesIn(text: string, parts = NAME_PARTS): string[] {
  const fold = (value: string) => value.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const folded = fold(text);
  return parts.filter((part) => folded.includes(fold(part)));
}

interface Reply {
  what: string;
  status: number;
  contentType: string;
  bytes: Uint8Array;
}

describeOnEachDatabase("anonymity on paper: no name in any byte a marker receives", (database) => {
  let school: School;
  let colleague: School["teacher"];
  let otherSchool: School;
  let storageRoot: string;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-anonymity-on-paper-"));
    useObjectStorage(createLocalStorage(storageRoot));
    // The stand-in files pile pages by the codes they carry; the pixels (page images, redaction) are the real imaging's.
    setIntakeImaging({ ...imagingDouble(), nameBoxCrop });
    school = await createSchool(db(), "Anonymity on paper");
    otherSchool = await createSchool(db(), "Elsewhere");
    colleague = await asService(db(), async (tx) => {
      const user = await createUser(tx, { email: `colleague2.${crypto.randomBytes(4).toString("hex")}@example.org`, fullName: "Second Colleague", instituteId: school.institute.id, role: "teacher" });
      return { ...user, token: await signUserToken({ userId: user.id, ttlSeconds: 600 }) };
    });
  });
  afterAll(async () => {
    fs.rmSync(storageRoot, { recursive: true, force: true });
  });

  /** POST …/printed-scripts of the given submissions, as the owner: the PDF. */
  async function print(batchId: string, submissionIds: string[]): Promise<Uint8Array> {
    const response = await callRest(printRoute, { method: "POST", token: school.teacher.token, body: { submission_ids: submissionIds }, params: { batch_id: batchId } });
    expect(response.status).toBe(200);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** The printed PDF as a pile the stand-in imaging files: each page keeps its content (text layer and all) and gets its code. */
  async function printedAsPile(printed: Uint8Array, codes: string[]): Promise<Uint8Array> {
    const pile = await PDFDocument.load(printed);
    pile.getPages().forEach((page, index) => page.node.set(PDFName.of("MarkbookCode"), PDFString.of(codes[index]!)));
    return pile.save();
  }

  /**
   * A batch of two students, Zoë and Bartholomew, printed with their names on the stamps. Zoë's script
   * comes back as a pile (the printed PDF itself), Bartholomew's printed script is uploaded as a scan on
   * its own, and a scan without a student waits to be identified.
   */
  async function printedBeforeAnonymous() {
    const { fileId, pageCount } = await uploadDemoPaper(school);
    const template = await as(school.teacher).exam.templates.create({ title: "Mock", page_count: pageCount, source_file_id: fileId });
    // The demo paper's questions and answer areas (its tick boxes too): the scripts are read for answers, and crops served.
    const generated = await generateDemoPaper();
    await as(school.teacher).exam.templates.save({ template_id: template.id, body: { name_box: generated.nameBox, ...demoPaperCanvas(generated) } });
    const roster = await createClassWithStudents(db(), school, 2);
    await asService(db(), async (tx) => {
      await tx.update(users).set({ full_name: ZOE }).where(eq(users.id, roster.students[0]!.id));
      await tx.update(users).set({ full_name: BART }).where(eq(users.id, roster.students[1]!.id));
    });
    const batch = await as(school.teacher).exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: "Mock 11C" });
    await as(school.teacher).exam.markers.invite({ batch_id: batch.id, body: { user_id: school.otherTeacher.id } });
    const rows = await asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
    const zoe = rows.find((row) => row.student_id === roster.students[0]!.id)!;
    const bart = rows.find((row) => row.student_id === roster.students[1]!.id)!;

    const zoePrint = await print(batch.id, [zoe.id]);
    const [{ print_code: code }] = (await asService(db(), (tx) => tx.select({ print_code: examBatches.print_code }).from(examBatches).where(eq(examBatches.id, batch.id)))) as [{ print_code: string }];
    const pile = await postPile(
      school.teacher.token,
      batch.id,
      await printedAsPile(zoePrint, Array.from({ length: pageCount }, (_, index) => encodePageCode({ batchCode: code, scriptNumber: zoe.script_number, page: index + 1 }))),
    );
    expect(pile.status).toBe(202);
    const pileId = ((await pile.json()) as { id: string }).id;
    await processScanPile(db(), pileId, imagingDouble());

    const bartPrint = await print(batch.id, [bart.id]);
    const upload = (fields: Parameters<typeof multipartBody>[0]) => {
      const form = multipartBody(fields);
      return scansRoute(
        new Request(`http://localhost/api/exam/batches/${batch.id}/scans`, { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType }, body: form.body }),
        { params: Promise.resolve({ batch_id: batch.id }) },
      );
    };
    expect((await upload([{ name: "student_id", value: bart.student_id! }, { name: "file", filename: "bart.pdf", bytes: bartPrint }])).status).toBe(200);
    const blank = await PDFDocument.create();
    blank.addPage([595.28, 841.89]).drawText("Question 1", { x: 60, y: 700, size: 14 });
    const loose = await upload([{ name: "file", filename: "loose.pdf", bytes: await blank.save() }]);
    expect(loose.status).toBe(201);
    const looseId = ((await loose.json()) as { id: string }).id;
    const pages = await pagesOfPile(db(), pileId);
    // Filing and the uploads queued each script's answers to be read: read them, as the job runner would.
    expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBeGreaterThan(0);
    const areas = await asService(db(), (tx) => tx.select({ id: examResponseAreas.id }).from(examResponseAreas).where(and(eq(examResponseAreas.template_id, template.id), eq(examResponseAreas.kind, "response"))));
    return { batch, zoe, bart, looseId, zoePrint, pages, areaIds: areas.map((area) => area.id), studentIds: roster.students.map((student) => student.id) };
  }

  type Fixture = Awaited<ReturnType<typeof printedBeforeAnonymous>>;

  /** Every read of the batch, its scans, page images and crops that a staff member can make, as bytes. */
  async function everyRead(user: { id: string; token: string }, fixture: Fixture): Promise<Reply[]> {
    const replies: Reply[] = [];
    const batchParams = { batch_id: fixture.batch.id };
    const keep = async (what: string, response: Promise<Response>) => {
      const answer = await response;
      replies.push({ what: `REST ${what}`, status: answer.status, contentType: answer.headers.get("content-type") ?? "", bytes: new Uint8Array(await answer.arrayBuffer()) });
    };
    const keepTrpc = async (what: string, call: Promise<unknown>) => {
      let text: string;
      try {
        text = JSON.stringify(await call);
      } catch (error) {
        text = JSON.stringify({ message: (error as Error).message });
      }
      replies.push({ what: `tRPC ${what}`, status: 200, contentType: "application/json", bytes: new TextEncoder().encode(text) });
    };
    const rest = (route: typeof queueRoute, params: Record<string, string>) => callRest(route, { token: user.token, params });
    await keep("GET /batches", rest(listBatchesRoute, {}));
    for (const [what, route] of [
      ["queue", queueRoute],
      ["results", resultsRoute],
      ["csv", csvRoute],
      ["intake", intakeRoute],
      ["scan-pages", scanPagesRoute],
      ["my-work", myWorkRoute],
      ["marker-progress", markerProgressRoute],
    ] as const) {
      await keep(`GET ${what}`, rest(route, batchParams));
    }
    for (const submissionId of [fixture.zoe.id, fixture.bart.id, fixture.looseId]) {
      await keep(`GET scan of ${submissionId}`, rest(scanRoute, { submission_id: submissionId }));
      await keep(`GET name-crop of ${submissionId}`, rest(nameCropRoute, { submission_id: submissionId }));
    }
    for (const page of fixture.pages) await keep(`GET image of page ${page.pile_page}`, rest(pageImageRoute, { page_id: page.id }));
    for (const submissionId of [fixture.zoe.id, fixture.bart.id, fixture.looseId]) {
      for (const areaId of fixture.areaIds) {
        await keep(`GET answer crop ${areaId} of ${submissionId}`, rest(answerCropRoute, { submission_id: submissionId, response_area_id: areaId }));
      }
    }
    const caller = as(user);
    await keepTrpc("exam.batches.list", caller.exam.batches.list({ include_archived: true }));
    await keepTrpc("exam.batches.overview", caller.exam.batches.overview({ include_archived: true }));
    await keepTrpc("exam.batches.queue", caller.exam.batches.queue(batchParams));
    await keepTrpc("exam.batches.results", caller.exam.batches.results(batchParams));
    await keepTrpc("exam.intake.status", caller.exam.intake.status(batchParams));
    await keepTrpc("exam.intake.pages", caller.exam.intake.pages(batchParams));
    await keepTrpc("exam.intake.printPreview", caller.exam.intake.printPreview(batchParams));
    await keepTrpc("exam.markers.myWork", caller.exam.markers.myWork(batchParams));
    await keepTrpc("exam.markers.progress", caller.exam.markers.progress(batchParams));
    await keepTrpc("exam.answers.forBatch", caller.exam.answers.forBatch(batchParams));
    for (const submissionId of [fixture.zoe.id, fixture.bart.id, fixture.looseId]) {
      await keepTrpc(`exam.answers.forSubmission ${submissionId}`, caller.exam.answers.forSubmission({ submission_id: submissionId }));
      await keepTrpc(`exam.marks.forSubmission ${submissionId}`, caller.exam.marks.forSubmission({ submission_id: submissionId }));
    }
    return replies;
  }

  const isPdf = (reply: Reply) => reply.status === 200 && reply.contentType.startsWith("application/pdf");
  const isJpeg = (reply: Reply) => reply.status === 200 && reply.contentType.startsWith("image/jpeg");
  const isPng = (reply: Reply) => reply.status === 200 && reply.contentType.startsWith("image/png");

  /**
   * Where a reply holds a name: its bytes as text (latin1 and UTF-8), a PDF's text layer and
   * information, and the stamp bands of its pixels by OCR (a PDF's first page, a page image).
   * OCR runs once per distinct image: every marker is served the same redacted bytes.
   */
  const ocrDone = new Map<string, string>();
  async function leaksOf(replies: Reply[], secrets: string[]): Promise<string[]> {
    const found: string[] = [];
    for (const reply of replies) {
      const raw = Buffer.from(reply.bytes);
      for (const text of [raw.toString("latin1"), raw.toString("utf8")]) {
        // Binary bytes spell short words by chance ("zoe" in a JPEG): there, only the long parts, exactly.
        const named = isPdf(reply) || isJpeg(reply) || isPng(reply) ? BINARY_PARTS.filter((part) => text.includes(part)) : namesIn(text);
        for (const part of [...named, ...secrets.filter((secret) => text.includes(secret))]) found.push(`${reply.what} (bytes): ${part}`);
      }
      if (isPdf(reply)) {
        const { pages, info } = await pdfTextAndInfo(reply.bytes);
        for (const part of namesIn([...pages, info].join("\n"))) found.push(`${reply.what} (PDF text): ${part}`);
      }
      if (isPdf(reply) || isJpeg(reply) || isPng(reply)) {
        const hash = crypto.createHash("sha256").update(reply.bytes).digest("hex");
        if (!ocrDone.has(hash)) ocrDone.set(hash, isPdf(reply) ? await ocrPdfStamps(reply.bytes) : isJpeg(reply) ? await ocrJpegStamps(reply.bytes) : await ocrWhole(reply.bytes));
        for (const part of namesIn(ocrDone.get(hash)!, OCR_PARTS)) found.push(`${reply.what} (OCR): ${part}`);
      }
    }
    return [...new Set(found)];
  }

  it(
    "serves a marker the scans of an anonymous batch with no name in any byte, where the same reads named the student before",
    async () => {
      const fixture = await printedBeforeAnonymous();
      const secrets = fixture.studentIds;

      // The controls: before the batch is anonymous, the print, the scan and the page image name Zoë,
      // in the text layer and to the OCR.
      expect(namesIn((await pdfTextAndInfo(fixture.zoePrint)).pages.join(" "))).toContain("Quill-Harrow");
      const printRead = await ocrPdfStamps(fixture.zoePrint);
      expect(namesIn(printRead, OCR_PARTS), `OCR of the print: ${printRead}`).not.toEqual([]);
      const before = await everyRead(school.otherTeacher, fixture);
      const zoeScanBefore = before.find((reply) => reply.what === `REST GET scan of ${fixture.zoe.id}`)!;
      expect(isPdf(zoeScanBefore)).toBe(true);
      expect(namesIn((await pdfTextAndInfo(zoeScanBefore.bytes)).pages.join(" "))).toContain("Quill-Harrow");
      const scanRead = await ocrPdfStamps(zoeScanBefore.bytes);
      expect(namesIn(scanRead, OCR_PARTS), `OCR of the scan: ${scanRead}`).not.toEqual([]);
      const pageImageBefore = before.find((reply) => reply.what === "REST GET image of page 2")!;
      expect(isJpeg(pageImageBefore)).toBe(true);
      const imageRead = await ocrJpegStamps(pageImageBefore.bytes);
      expect(namesIn(imageRead, OCR_PARTS), `OCR of the page image: ${imageRead}`).not.toEqual([]);
      expect(await leaksOf(before, secrets)).not.toEqual([]);

      const turnedOn = await callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous: true }, params: { batch_id: fixture.batch.id } });
      expect(turnedOn.status).toBe(200);

      for (const marker of [school.otherTeacher, colleague, school.head, school.admin]) {
        const replies = await everyRead(marker, fixture);
        const leaks = await leaksOf(replies, secrets);
        expect(leaks, `as ${marker.full_name}: ${leaks.join("; ")}`).toEqual([]);
        expect(replies.filter((reply) => reply.status >= 500).map((reply) => reply.what)).toEqual([]);
        // What a marker needs still comes: both scans (pictures, no text layer) and every page image.
        const scans = replies.filter((reply) => reply.what.startsWith("REST GET scan of") && isPdf(reply));
        expect(scans.length).toBe(3);
        for (const scan of scans.slice(0, 2)) {
          const { pages } = await pdfTextAndInfo(scan.bytes);
          expect(pages.length).toBeGreaterThan(1);
          expect(pages.join("").trim()).toBe("");
        }
        expect(replies.filter((reply) => reply.what.startsWith("REST GET image of page") && isJpeg(reply)).length).toBe(fixture.pages.length);
        // And the answers' crops of the scripts read (each filed script: every area of its pages).
        expect(replies.filter((reply) => reply.what.startsWith("REST GET answer crop") && isPng(reply)).length).toBeGreaterThanOrEqual(fixture.areaIds.length);
      }
    },
    // Printing, filing, reading the answers, and OCR of each distinct page image, scan and crop.
    timeoutFor(60),
  );

  it("prints an anonymous batch's scripts with the script number, page and code only: no name in the text layer, the metadata or the pixels", async () => {
    const fixture = await printedBeforeAnonymous();
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: fixture.batch.id, anonymous: true });
    const printed = await print(fixture.batch.id, [fixture.zoe.id, fixture.bart.id]);
    const { pages, info } = await pdfTextAndInfo(printed);
    expect(namesIn([...pages, info].join("\n"))).toEqual([]);
    // The raw bytes exactly, as for every binary reply: folded and short ("zoe"), compressed streams spell it by chance.
    const raw = Buffer.from(printed).toString("latin1");
    expect(BINARY_PARTS.filter((part) => raw.includes(part))).toEqual([]);
    // Each stamp still says which script and page it is.
    for (const script of [fixture.zoe.script_number, fixture.bart.script_number]) {
      expect(pages.some((text) => new RegExp(`Script ${script} · Page 1 of \\d+ · [0-9A-Z]{6}`).test(text))).toBe(true);
    }
    expect(pages.some((text) => text.includes("Spare copy"))).toBe(false);
    // The OCR reads the stamp that is there. Its digits are checked in the text layer above: OCR reads a
    // lone "1" as "l" as often as not, so the control asks only for the stamp's words. A small stamp is
    // now and then misread whole (it depends on the code printed beside it: seen once in CI), so a reading
    // that misses it is followed by one at a finer resolution; names are looked for in both.
    const stampRead = /script.{0,6}page 1 of \d/;
    let read = await ocrPdfStamps(printed);
    if (!stampRead.test(read)) read += `\n${await ocrPdfStamps(printed, RENDER_DPI * 1.5)}`;
    expect(namesIn(read, OCR_PARTS)).toEqual([]);
    expect(read, read).toMatch(stampRead);
  }, timeoutFor(20));

  it("answers another school's staff and a student with 404 for the scans, page images, crops and print of an anonymous batch", async () => {
    const fixture = await printedBeforeAnonymous();
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: fixture.batch.id, anonymous: true });
    for (const user of [otherSchool.teacher, otherSchool.admin, school.student]) {
      const replies = [
        await callRest(scanRoute, { token: user.token, params: { submission_id: fixture.zoe.id } }),
        await callRest(nameCropRoute, { token: user.token, params: { submission_id: fixture.zoe.id } }),
        await callRest(pageImageRoute, { token: user.token, params: { page_id: fixture.pages[0]!.id } }),
        await callRest(printRoute, { method: "POST", token: user.token, body: {}, params: { batch_id: fixture.batch.id } }),
      ];
      expect(replies.map((reply) => reply.status)).toEqual([404, 404, 404, 404]);
      for (const reply of replies) expect(namesIn(await reply.text())).toEqual([]);
    }
  });

  it("names scripts by number in the owner's refusals of an anonymous batch, where they named the student before", async () => {
    const fixture = await printedBeforeAnonymous();
    const owner = school.teacher.token;
    const refusals = async () => {
      // Page 2 of Zoë's script moved onto her page 1: the 409 on a taken page.
      const taken = await callRest(movePageRoute, { method: "POST", token: owner, body: { submission_id: fixture.zoe.id, page_number: 1 }, params: { page_id: fixture.pages[1]!.id } });
      // The loose scan given to Bartholomew, who has a scan.
      const assigned = await callRest(assignRoute, { method: "POST", token: owner, body: { student_id: fixture.bart.student_id }, params: { submission_id: fixture.looseId } });
      // A pile page moved to Bartholomew's scan uploaded on its own.
      const onItsOwn = await callRest(movePageRoute, { method: "POST", token: owner, body: { student_id: fixture.bart.student_id }, params: { page_id: fixture.pages[0]!.id } });
      return Promise.all([taken, assigned, onItsOwn].map(async (response) => ({ status: response.status, detail: ((await response.json()) as { detail: string }).detail })));
    };
    const before = await refusals();
    expect(before.map((reply) => reply.status)).toEqual([409, 409, 409]);
    expect(before[0]!.detail).toBe(`${ZOE}'s script already has a page 1: move that page first`);
    expect(before[1]!.detail).toContain(BART);

    await as(school.teacher).exam.batches.setAnonymous({ batch_id: fixture.batch.id, anonymous: true });
    const after = await refusals();
    expect(after.map((reply) => reply.status)).toEqual([409, 409, 409]);
    expect(after[0]!.detail).toBe(`Script ${fixture.zoe.script_number} already has a page 1: move that page first`);
    expect(after[1]!.detail).toBe(`Script ${fixture.bart.script_number} already has a scan: it is not replaced by an assignment`);
    expect(after[2]!.detail).toBe(`Script ${fixture.bart.script_number} has a scan uploaded on its own: scanned pages are not added to it`);
    for (const { detail } of after) expect(namesIn(detail)).toEqual([]);
  });
});

afterAll(async () => {
  if (ocr) await (await ocr).terminate();
});
