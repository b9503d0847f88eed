/**
 * Answers read at filing (issue 36), end to end on real pixels: a template on the tick-box test paper
 * (tests/support/tick-paper.ts), its batch printed through the REST route, the scripts answered with a
 * pen as people answer (tests/support/pen-answers.ts) and scanned as a copier would
 * (tests/support/scanned-pile.ts), the pile uploaded and filed by its job, then the reading job queued
 * by the filing run in the real imaging worker. The readings and the automatic marks are checked
 * against the truth: a decided answer is the true one and carries its mark, an undecided one has none,
 * no written area is called blank. Then a teacher's mark survives a re-read, and the crop of an area of
 * an anonymous batch is painted over where the name box lies.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as printRoute } from "../app/api/exam/batches/[batch_id]/printed-scripts/route";
import { GET as cropRoute } from "../app/api/exam/submissions/[submission_id]/answer-crops/[response_area_id]/route";
import { asService, asUser } from "../server/db/rls";
import { examAnswerReadings, examBatches, examMarkEntries, examResponseAreas, examScanPages, examSubmissions } from "../server/db/schema";
import { queueAnswerReading } from "../server/exam/answer-reading-queue";
import { readAnswersJob } from "../server/exam/answers/read-job";
import { workerImaging } from "../server/exam/intake/imaging";
import { intakeImaging, setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readScanPileJob } from "../server/exam/intake/pile-job";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, uploadScan, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { pileRow, postPile, uploadPaperFile } from "./support/intake-fixtures";
import { penAnswers } from "./support/pen-answers";
import { scanPile } from "./support/scanned-pile";
import { type TickPaper, tickPaper } from "./support/tick-paper";

const STUDENTS = 3;
/** Where the name is written on page 1: over the right end of the first tick question's crop, to see it covered. */
const NAME_BOX = { page: 1, x: 0.55, y: 0.14, width: 0.2, height: 0.04 };

describeOnEachDatabase("answers read at filing, from a pen-answered scanned pile", (database) => {
  let school: School;
  let storageRoot: string;
  let paper: TickPaper;
  let paperFileId: string;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-answers-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(db(), "Answers pile");
    paper = await tickPaper({ pages: 2, questionsPerPage: 4 });
    paperFileId = await uploadPaperFile(school.teacher.token, paper.bytes, "ticks.pdf");
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** The paper's areas as a template: a tick question per tick area (B is right, 1 mark), a written question per written area (2 marks). */
  function canvasOfPaper() {
    const questionOf = new Map<string, string>();
    const areaOf = new Map<string, string>();
    const questions = [];
    const response_areas = [];
    let order = 0;
    for (const page of paper.pages) {
      for (const area of page.tickAreas) {
        const id = crypto.randomUUID();
        questionOf.set(area.id, id);
        areaOf.set(area.id, crypto.randomUUID());
        questions.push({ id, parent_id: null, label: area.id, order: order++, max_marks: 1, answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: ["B"], allow_multiple: false }, spec_ref: null, is_container: false });
        const left = Math.min(...area.boxes.map((box) => box.x)) - 0.02;
        const top = Math.min(...area.boxes.map((box) => box.y)) - 0.005;
        const right = Math.max(...area.boxes.map((box) => box.x + box.width)) + 0.005;
        const bottom = Math.max(...area.boxes.map((box) => box.y + box.height)) + 0.005;
        response_areas.push({ id: areaOf.get(area.id)!, question_id: id, page: page.page, kind: "response" as const, response_form: "box", x: left, y: top, width: right - left, height: bottom - top, tick_boxes: area.boxes });
      }
      for (const area of page.writtenAreas) {
        const id = crypto.randomUUID();
        questionOf.set(area.id, id);
        areaOf.set(area.id, crypto.randomUUID());
        questions.push({ id, parent_id: null, label: area.id, order: order++, max_marks: 2, answer_type: "text", mark_scheme: null, spec_ref: null, is_container: false });
        response_areas.push({ id: areaOf.get(area.id)!, question_id: id, page: page.page, kind: "response" as const, response_form: "box", x: area.x, y: area.y, width: area.width, height: area.height });
      }
    }
    return { questionOf, areaOf, body: { name_box: NAME_BOX, questions, response_areas, boundaries: [] } };
  }

  /** A template of the paper (canvasOfPaper), a class of `students`, and a batch of it. */
  async function batchOfPaper(templateTitle: string, batchTitle: string, students: number, options: { anonymous?: boolean } = {}) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: templateTitle, page_count: paper.pages.length, source_file_id: paperFileId });
    const canvas = canvasOfPaper();
    await teacher.exam.templates.save({ template_id: template.id, body: canvas.body });
    const roster = await createClassWithStudents(db(), school, students);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: batchTitle, ...options });
    return { teacher, canvas, batch };
  }

  it(
    "reads every filed page's ticks and blanks, writes the decided answers' marks, none for the undecided, and keeps a teacher's mark over a re-read",
    async () => {
      const { teacher, canvas, batch } = await batchOfPaper("Ticks and words", "Ticks 9C", STUDENTS, { anonymous: true });
      const printed = await printRoute(
        new Request(`http://localhost/api/exam/batches/${batch.id}/printed-scripts`, {
          method: "POST",
          headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": "application/json" },
          body: JSON.stringify({ spare_copies: 0 }),
        }),
        { params: Promise.resolve({ batch_id: batch.id }) },
      );
      expect(printed.status).toBe(200);
      const answered = await penAnswers(new Uint8Array(await printed.arrayBuffer()), paper, 36);
      const pile = await scanPile(answered.pdf, { seed: 36, pagesPerScript: paper.pages.length, duplicate: false, missing: false, upsideDown: 1, dpi: { min: 150, max: 300 } });
      const uploaded = await postPile(school.teacher.token, batch.id, pile.pdf, { filename: "9C.pdf" });
      expect(uploaded.status).toBe(202);
      const { id: pileId } = (await uploaded.json()) as { id: string };
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pileId)).toMatchObject({ status: "done" });
      // Filing queued one reading per script; the screen counts them until they have run.
      expect((await teacher.exam.answers.forBatch({ batch_id: batch.id })).reading).toBe(STUDENTS);
      // The pile's pass read each coded page's areas beside its code (exam_scan_pages.area_reading): the
      // reading job takes those and reads again only the pages the pass could not (no code read).
      const passed = await asService(db(), (tx) => tx.select({ page: examScanPages.area_reading_page }).from(examScanPages).where(eq(examScanPages.pile_id, pileId)));
      expect(passed.filter((page) => page.page !== null).length).toBeGreaterThan(0);
      const imaging = intakeImaging();
      let readAgain = 0;
      setIntakeImaging({ ...imaging, readAreas: (input) => (readAgain++, imaging.readAreas(input)) });
      try {
        expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(STUDENTS);
      } finally {
        setIntakeImaging(imaging);
      }
      expect(readAgain).toBe(passed.filter((page) => page.page === null).length);
      expect((await teacher.exam.answers.forBatch({ batch_id: batch.id })).reading).toBe(0);

      const pages = await asService(db(), (tx) => tx.select().from(examScanPages).where(eq(examScanPages.pile_id, pileId)));
      const readings = await asService(db(), (tx) => tx.select().from(examAnswerReadings).where(eq(examAnswerReadings.batch_id, batch.id)));
      const marks = await asService(db(), (tx) => tx.select().from(examMarkEntries).where(eq(examMarkEntries.batch_id, batch.id)));
      let decided = 0;
      let undecided = 0;
      let blanksFound = 0;
      for (const page of pages) {
        const truthOfPile = pile.truth[page.pile_page - 1]!;
        if (truthOfPile.kind !== "printed") throw new Error("only printed pages in this pile");
        const truth = answered.truth[truthOfPile.printedPage - 1]!;
        expect(page.placement).toBe("filed");
        for (const area of truth.tickAreas) {
          const where = `script ${page.script_number} page ${page.printed_page} ${area.id} (${area.scenario})`;
          const reading = readings.find((row) => row.submission_id === page.submission_id && row.response_area_id === canvas.areaOf.get(area.id));
          expect(reading, where).toMatchObject({ kind: "ticks", page_number: page.page_number });
          const mark = marks.find((row) => row.submission_id === page.submission_id && row.question_id === canvas.questionOf.get(area.id));
          if (reading!.answer === null) {
            undecided++;
            expect(mark, where).toBeUndefined();
            continue;
          }
          decided++;
          expect(reading!.answer, where).toEqual(area.answer);
          expect(mark, where).toMatchObject({
            marked_by: "ticks",
            awarded_marks: area.answer.join() === "B" ? "1.00" : "0.00",
            mark_scheme_detail: { type: "multiple_choice", answer: area.answer },
            confirmed: true,
            marked_by_user_id: null,
          });
        }
        for (const area of truth.writtenAreas) {
          const where = `script ${page.script_number} page ${page.printed_page} ${area.id} (${area.scenario})`;
          const reading = readings.find((row) => row.submission_id === page.submission_id && row.response_area_id === canvas.areaOf.get(area.id));
          expect(reading, where).toMatchObject({ kind: "written" });
          // No written answer is called blank.
          if (area.written) expect(reading!.blank, where).not.toBe("blank");
          else if (reading!.blank === "blank") blanksFound++;
          // The batch gives no automatic zeros (its setting is off).
          expect(marks.find((row) => row.submission_id === page.submission_id && row.question_id === canvas.questionOf.get(area.id)), where).toBeUndefined();
        }
      }
      expect(decided + undecided).toBe(STUDENTS * paper.pages.length * 4);
      expect(decided / (decided + undecided)).toBeGreaterThanOrEqual(0.9);
      expect(blanksFound).toBeGreaterThan(0);

      // The teacher corrects one automatic mark; the script is read again (a page moved, say): the teacher's mark stays.
      const automatic = marks.find((row) => row.marked_by === "ticks")!;
      await teacher.exam.marks.upsert({ mark_id: automatic.id, body: { submission_id: automatic.submission_id, question_id: automatic.question_id, awarded_marks: 1, confirmed: true } });
      const [row] = await asService(db(), (tx) => tx.select().from(examBatches).where(eq(examBatches.id, batch.id)));
      await asService(db(), (tx) => queueAnswerReading(tx, row!, [automatic.submission_id]));
      expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(1);
      const after = await asService(db(), (tx) =>
        tx.select().from(examMarkEntries).where(and(eq(examMarkEntries.submission_id, automatic.submission_id), inArray(examMarkEntries.question_id, [automatic.question_id]))),
      );
      expect(after[0]).toMatchObject({ marked_by: "teacher", awarded_marks: "1.00", marked_by_user_id: school.teacher.id });

      // A written area's place changed in the template since the pass read the pile: the pages it is on
      // are read again rather than taken from the pass; the script's other pages still come from it.
      const shifted = paper.pages[0]!.writtenAreas[0]!;
      await asService(db(), (tx) => tx.update(examResponseAreas).set({ x: sql`${examResponseAreas.x} + 0.004` }).where(eq(examResponseAreas.id, canvas.areaOf.get(shifted.id)!)));
      const ownPages = pages.filter((page) => page.submission_id === automatic.submission_id);
      let readOnShift = 0;
      setIntakeImaging({ ...imaging, readAreas: (input) => (readOnShift++, imaging.readAreas(input)) });
      try {
        await asService(db(), (tx) => queueAnswerReading(tx, row!, [automatic.submission_id]));
        expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(1);
      } finally {
        setIntakeImaging(imaging);
      }
      expect(readOnShift).toBe(ownPages.filter((page) => page.area_reading === null || page.printed_page === 1).length);
      expect(readOnShift).toBeLessThan(ownPages.length);

      // The crop of the first tick question on page 1 of a script: a PNG, painted over where the name box is (an anonymous batch).
      const firstArea = canvas.areaOf.get(paper.pages[0]!.tickAreas[0]!.id)!;
      const response = await cropRoute(
        new Request(`http://localhost/api/exam/submissions/${automatic.submission_id}/answer-crops/${firstArea}`, { headers: { authorization: `Bearer ${school.teacher.token}` } }),
        { params: Promise.resolve({ submission_id: automatic.submission_id, response_area_id: firstArea }) },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const png = Buffer.from(await response.arrayBuffer());
      const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
      expect(info.width).toBeLessThanOrEqual(1200);
      const area = canvas.body.response_areas.find((candidate) => candidate.id === firstArea)!;
      const crop = { x: Math.max(0, area.x - 0.04), y: Math.max(0, area.y - 0.04) };
      const cropWidth = area.x + area.width + 0.04 - crop.x;
      const cropHeight = area.y + area.height + 0.04 - crop.y;
      // The middle of the name box's part of the crop: every pixel the cover's grey.
      const inside = { x: 0.6, y: 0.16 };
      const px = Math.round(((inside.x - crop.x) / cropWidth) * info.width);
      const py = Math.round(((inside.y - crop.y) / cropHeight) * info.height);
      for (let dy = -3; dy <= 3; dy++) for (let dx = -3; dx <= 3; dx++) expect(data[(py + dy) * info.width + (px + dx)]).toBe(128);
      // Left of the name box the paper shows as it is: white paper and the boxes' ink, no cover.
      const left = Math.round(((0.1 - crop.x) / cropWidth) * info.width);
      const strip = Array.from({ length: 40 }, (_, index) => data[py * info.width + left + index]!);
      expect(Math.max(...strip)).toBeGreaterThan(200);
      // Another school's teacher gets a 404.
      const stranger = await createSchool(db(), "Stranger");
      const refused = await cropRoute(
        new Request(`http://localhost/api/exam/submissions/${automatic.submission_id}/answer-crops/${firstArea}`, { headers: { authorization: `Bearer ${stranger.teacher.token}` } }),
        { params: Promise.resolve({ submission_id: automatic.submission_id, response_area_id: firstArea }) },
      );
      expect(refused.status).toBe(404);

      // A page moved by hand to a new script: both scripts are read again, the page's readings go with it.
      const moved = pages.find((page) => page.submission_id === automatic.submission_id && page.printed_page === 2)!;
      const result = await teacher.exam.intake.movePage({ page_id: moved.id, new_script: true });
      expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(2);
      const movedAreas = new Set(paper.pages[1]!.tickAreas.map((area) => canvas.areaOf.get(area.id)));
      const rows = await asService(db(), (tx) => tx.select().from(examAnswerReadings).where(inArray(examAnswerReadings.submission_id, [automatic.submission_id, result.submission.id])));
      expect(rows.filter((row) => row.submission_id === result.submission.id && movedAreas.has(row.response_area_id))).toHaveLength(movedAreas.size);
      expect(rows.filter((row) => row.submission_id === automatic.submission_id && movedAreas.has(row.response_area_id))).toEqual([]);
    },
    timeoutFor(STUDENTS * 2 * 3 + 30),
  );

  it(
    "reads a scan uploaded on its own, page by page, aligned by the content where no code was printed",
    async () => {
      const { teacher, canvas, batch } = await batchOfPaper("Ticks, one scan", "Ticks 9D", 1);
      // One script answered on the paper as it is (never printed: no code on its pages).
      const answered = await penAnswers(paper.bytes, paper, 7);
      const uploaded = await uploadScanInOrder(school.teacher.token, batch.id, answered.pdf);
      // Matched to the roster's only student (200: an existing submission got the scan).
      expect(uploaded.status).toBe(200);
      const { id: script } = (await uploaded.json()) as { id: string };
      expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(1);
      const readings = await asService(db(), (tx) => tx.select().from(examAnswerReadings).where(eq(examAnswerReadings.submission_id, script)));
      expect(readings).toHaveLength(paper.pages.reduce((sum, page) => sum + page.tickAreas.length + page.writtenAreas.length, 0));
      let decided = 0;
      for (const [index, truth] of answered.truth.entries()) {
        for (const area of truth.tickAreas) {
          const reading = readings.find((row) => row.response_area_id === canvas.areaOf.get(area.id))!;
          expect(reading, area.id).toMatchObject({ page_number: index + 1, alignment: "content" });
          if (reading.answer === null) continue;
          decided++;
          expect(reading.answer, `${area.id} (${area.scenario})`).toEqual(area.answer);
        }
        for (const area of truth.writtenAreas) {
          const reading = readings.find((row) => row.response_area_id === canvas.areaOf.get(area.id))!;
          if (area.written) expect(reading.blank, `${area.id} (${area.scenario})`).not.toBe("blank");
        }
      }
      expect(decided).toBeGreaterThan(0);
      const answers = await teacher.exam.answers.forSubmission({ submission_id: script });
      expect(answers.answers.filter((answer) => answer.marked_by === "ticks")).toHaveLength(decided);
    },
    timeoutFor(2 * 3 + 20),
  );

  it(
    "keeps an automatic mark the marker undid on an unmatched scan undone when the scan is given to a student",
    async () => {
      const { teacher, batch } = await batchOfPaper("Ticks, unmatched", "Ticks 9E", 1);
      const answered = await penAnswers(paper.bytes, paper, 11);
      // Uploaded without a student: an unmatched scan (201), read as any script is.
      const uploaded = await uploadScan(school.teacher.token, batch.id, answered.pdf, [], "whose.pdf");
      expect(uploaded.status).toBe(201);
      const { id: scan } = (await uploaded.json()) as { id: string };
      expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(1);
      const automatic = (await teacher.exam.answers.forSubmission({ submission_id: scan })).answers.filter((answer) => answer.marked_by === "ticks");
      expect(automatic.length).toBeGreaterThan(1);
      const [undone, kept] = automatic;
      expect(await teacher.exam.answers.undoAutomaticMark({ submission_id: scan, question_id: undone!.question_id })).toEqual({ removed: true });

      // Another school's teacher cannot carry readings between our scripts.
      const stranger = await createSchool(db(), "Carrier");
      const [slotRow] = await asService(db(), (tx) => tx.select().from(examSubmissions).where(and(eq(examSubmissions.batch_id, batch.id), isNotNull(examSubmissions.student_id))));
      await expect(asUser(db(), stranger.teacher.id, (tx) => tx.execute(sql`select app.carry_undone_automatic_marks(${scan}, ${slotRow!.id})`))).rejects.toThrow();

      const assigned = await teacher.exam.submissions.assign({ submission_id: scan, student_id: slotRow!.student_id! });
      expect(await runDueJobs(db(), { kinds: [readAnswersJob] })).toBe(1);
      const after = await teacher.exam.answers.forSubmission({ submission_id: assigned.id });
      // The undone one stays undone (no mark, the reading remembers), the others are read from the ticks again.
      expect(after.answers.find((answer) => answer.question_id === undone!.question_id)).toMatchObject({ marked_by: null, awarded_marks: null });
      expect(after.answers.find((answer) => answer.question_id === kept!.question_id)).toMatchObject({ marked_by: "ticks" });
      const remembered = await asService(db(), (tx) =>
        tx.select().from(examAnswerReadings).where(and(eq(examAnswerReadings.submission_id, assigned.id), eq(examAnswerReadings.question_id, undone!.question_id))),
      );
      expect(remembered.map((row) => row.automatic_mark_undone)).toEqual([true]);
    },
    timeoutFor(2 * 3 + 20),
  );
});
