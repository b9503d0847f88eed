/**
 * The pile job keeps each coded page's areas as the pile pass read them (issue 36): a template whose paper
 * has tick boxes and written areas (tests/support/tick-paper.ts), its batch printed, answered in pen
 * (tests/support/pen-answers.ts) and scanned (tests/support/scanned-pile.ts), the pile uploaded and read by
 * the real job in the real imaging worker. Every coded page's row holds its reading and the template page
 * it was read against, read back by storedAreaReading; a page without its code holds none. The column is
 * bounded by the database, and storedAreaReading refuses what is not a reading.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { examQuestions, examResponseAreas, examScanPages } from "../server/db/schema";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readScanPileJob } from "../server/exam/intake/pile-job";
import { printScripts } from "../server/exam/intake/print-scripts";
import { storedAreaReading } from "../server/exam/ticks/stored-reading";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { pagesOfPile, pileRow, postPile, printedBatch, uploadPaperFile } from "./support/intake-fixtures";
import { type PageTruth, penAnswers, score } from "./support/pen-answers";
import { type PileTruth, scanPile } from "./support/scanned-pile";
import { type TickPaper, tickPaper } from "./support/tick-paper";

describeOnEachDatabase("the pile job keeps the areas read beside each page's code", (database) => {
  let school: School;
  let storageRoot: string;
  let storage: ObjectStorage;
  let paper: TickPaper;
  const db = () => database().db;

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-ticks-pile-"));
    storage = useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(db(), "Ticks pile");
    paper = await tickPaper({ pages: 2, questionsPerPage: 4 });
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** A template of the tick paper: a question and a response area (a uuid each) for each of its areas; the paper's ids → the areas'. */
  async function tickTemplate() {
    const fileId = await uploadPaperFile(school.teacher.token, paper.bytes, "ticks.pdf");
    const template = await createCaller({ db: db(), user: { id: school.teacher.id } }).exam.templates.create({ title: "Ticks", page_count: paper.pages.length, source_file_id: fileId });
    const areaIds = new Map<string, string>();
    await asService(db(), async (tx) => {
      let order = 0;
      for (const page of paper.pages) {
        const areas = [
          ...page.tickAreas.map((area) => {
            const first = area.boxes[0]!;
            const last = area.boxes[area.boxes.length - 1]!;
            return { id: area.id, rect: { x: first.x - 0.01, y: first.y - 0.005, width: last.x + last.width - first.x + 0.02, height: first.height + 0.01 }, tick_boxes: area.boxes };
          }),
          ...page.writtenAreas.map((area) => ({ id: area.id, rect: { x: area.x, y: area.y, width: area.width, height: area.height }, tick_boxes: null })),
        ];
        for (const area of areas) {
          const questionId = crypto.randomUUID();
          const areaId = crypto.randomUUID();
          areaIds.set(area.id, areaId);
          await tx.insert(examQuestions).values({ id: questionId, template_id: template.id, label: String(++order), order, max_marks: "1" });
          await tx.insert(examResponseAreas).values({ id: areaId, template_id: template.id, question_id: questionId, page: page.page, ...area.rect, tick_boxes: area.tick_boxes });
        }
      }
    });
    return { template, areaIds };
  }

  it(
    "stores each coded page's reading with its template page, and none for a page without its code",
    async () => {
      const { template, areaIds } = await tickTemplate();
      const { batch } = await printedBatch(db(), school, template.id, { students: 2, spares: 0 });
      const printed = await printScripts(db(), school.teacher.id, batch.id, {}, { storage });
      const answered = await penAnswers(printed.pdf, paper, 51);
      const pile = await scanPile(answered.pdf, { seed: 51, pagesPerScript: 2, duplicate: false, missing: false, upsideDown: 1, tornCodes: [3], dpi: { min: 150, max: 300 } });
      const uploaded = await postPile(school.teacher.token, batch.id, pile.pdf);
      expect(uploaded.status).toBe(202);
      const { id: pileId } = (await uploaded.json()) as { id: string };
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pileId)).toMatchObject({ status: "done", failure: null });

      const paperIdOf = new Map([...areaIds].map(([paperId, areaId]) => [areaId, paperId]));
      const results: { truth: PageTruth; reading: NonNullable<ReturnType<typeof storedAreaReading>> }[] = [];
      for (const row of await pagesOfPile(db(), pileId)) {
        const truth = pile.truth[row.pile_page - 1] as Extract<PileTruth, { kind: "printed" }>;
        if (truth.torn) {
          expect(row.area_reading).toBeNull();
          expect(row.area_reading_page).toBeNull();
          expect(storedAreaReading(row)).toBeNull();
          continue;
        }
        expect(row.area_reading_page).toBe(truth.page);
        const layout = paper.pages[truth.page - 1]!;
        const expected = { page: truth.page, tickAreaIds: layout.tickAreas.map((area) => areaIds.get(area.id)!), writtenAreaIds: layout.writtenAreas.map((area) => areaIds.get(area.id)!) };
        const reading = storedAreaReading(row, expected);
        expect(reading?.alignment.by).toBe("code");
        // Not for another page, nor for areas the reading does not have.
        expect(storedAreaReading(row, { ...expected, page: truth.page === 1 ? 2 : 1 })).toBeNull();
        expect(storedAreaReading(row, { ...expected, tickAreaIds: [crypto.randomUUID()] })).toBeNull();
        // Scored against the truth with the paper's own ids.
        const renamed = { ...reading!, tickAreas: reading!.tickAreas.map((area) => ({ ...area, id: paperIdOf.get(area.id)! })), writtenAreas: reading!.writtenAreas.map((area) => ({ ...area, id: paperIdOf.get(area.id)! })) };
        results.push({ truth: answered.truth[truth.printedPage - 1]!, reading: renamed });
      }
      expect(results).toHaveLength(3);
      const figures = score(results);
      expect(figures.wrongDetails).toEqual([]);
      expect(figures.falseBlankDetails).toEqual([]);
      expect(figures.answersDecided / figures.answers).toBeGreaterThanOrEqual(0.9);
    },
    // Printing, answering and scanning 4 pages, reading them in the worker, filing: about 10 CPU-seconds.
    timeoutFor(14),
  );

  it("keeps a reading only with its page, a page of a paper, and within a megabyte", async () => {
    const [row] = await asService(db(), (tx) => tx.select().from(examScanPages).limit(1));
    expect(row).toBeDefined();
    const attempt = (values: Partial<typeof examScanPages.$inferInsert>) =>
      asService(db(), (tx) => tx.update(examScanPages).set(values).where(eq(examScanPages.id, row!.id))).then(
        () => "kept",
        () => "refused",
      );
    const reading = { alignment: { by: "code", turn: 0 }, tickAreas: [], writtenAreas: [] };
    expect(await attempt({ area_reading: reading, area_reading_page: null })).toBe("refused");
    expect(await attempt({ area_reading: null, area_reading_page: 1 })).toBe("refused");
    expect(await attempt({ area_reading: reading, area_reading_page: 0 })).toBe("refused");
    expect(await attempt({ area_reading: reading, area_reading_page: 1000 })).toBe("refused");
    expect(await attempt({ area_reading: { ...reading, padding: "x".repeat(1_100_000) }, area_reading_page: 1 })).toBe("refused");
    expect(await attempt({ area_reading: reading, area_reading_page: 2 })).toBe("kept");
    expect(storedAreaReading({ area_reading: reading, area_reading_page: 2 })).toEqual(reading);
  });

  it("reads nothing but a reading back from the column", () => {
    const reading = { alignment: { by: "code", turn: 0 }, tickAreas: [{ id: "a", answer: ["B"], boxes: [{ label: "B", state: "ticked", ink: 0.2, filled: false }] }], writtenAreas: [{ id: "b", blank: "blank", ink: 0 }] };
    expect(storedAreaReading({ area_reading: reading, area_reading_page: 1 })).toEqual(reading);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const read = storedAreaReading({ area_reading: value, area_reading_page: 1 });
        if (read !== null) expect(Array.isArray(read.tickAreas) && Array.isArray(read.writtenAreas)).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(storedAreaReading({ area_reading: { ...reading, tickAreas: "all of them" }, area_reading_page: 1 })).toBeNull();
    expect(storedAreaReading({ area_reading: reading, area_reading_page: null })).toBeNull();
  });
});
