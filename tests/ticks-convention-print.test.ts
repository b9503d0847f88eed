/**
 * The corrections convention printed on each script's first page (issue 36, item 2): a batch whose paper
 * has tick boxes prints CORRECTIONS_CONVENTION once per script, on its first page only, in a place that
 * covers no answer area, the name box or the stamp; a paper without tick boxes prints no such line; an
 * anonymous batch's print still names nobody. Read back from the printed PDF's text layer (pdfjs).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedNameFonts } from "../server/pdf/fonts";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { printScripts } from "../server/exam/intake/print-scripts";
import { type PageRect, placeNote, placeStamps, stampScripts, stampTextRect } from "../server/exam/intake/stamp";
import { CORRECTIONS_CONVENTION } from "../server/exam/ticks/convention";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { uploadDemoPaper } from "./support/intake-fixtures";
import { pdfTextPages } from "./support/pdf-text";
import { tickPaper } from "./support/tick-paper";

/** Whether a page's text layer holds the convention (pdfjs may give a line as one item or several). */
const holdsConvention = (text: string) => text.replace(/\s+/g, " ").includes(CORRECTIONS_CONVENTION) || text.replace(/\n/g, " ").replace(/\s+/g, " ").includes(CORRECTIONS_CONVENTION);

describe("the note on a script's first page", () => {
  it("is printed on each script's first page only, and on no page without it", async () => {
    const paper = await tickPaper({ pages: 3 });
    const scripts = [1, 2].map((scriptNumber) => ({ scriptNumber, heading: `Student ${scriptNumber}` }));
    const withNote = await pdfTextPages((await stampScripts(paper.bytes, "TESTAB", scripts, paper.keepClear, { firstPageNote: CORRECTIONS_CONVENTION })).pdf);
    expect(withNote.map(holdsConvention)).toEqual([true, false, false, true, false, false]);
    const without = await pdfTextPages((await stampScripts(paper.bytes, "TESTAB", scripts, paper.keepClear)).pdf);
    expect(without.some(holdsConvention)).toBe(false);
  });

  it("never covers an area, the name box or the stamp, wherever the areas lie; it is left out when nothing is clear", async () => {
    const document = await PDFDocument.create();
    const { regular: font } = await embedNameFonts(document);
    const size = { width: 595.28, height: 841.89 };
    const rect = fc
      .record({ x: fc.double({ min: 0, max: 0.95, noNaN: true }), y: fc.double({ min: 0, max: 0.95, noNaN: true }), width: fc.double({ min: 0.01, max: 1, noNaN: true }), height: fc.double({ min: 0.005, max: 0.5, noNaN: true }) })
      .map((r): PageRect => ({ page: 1, x: r.x, y: r.y, width: Math.min(r.width, 1 - r.x), height: Math.min(r.height, 1 - r.y) }));
    let placed = 0;
    fc.assert(
      fc.property(fc.array(rect, { maxLength: 30 }), (keepClear) => {
        const { corner } = placeStamps([size], keepClear)[0]!;
        const note = placeNote(CORRECTIONS_CONVENTION, font, size, keepClear, corner);
        if (!note) return;
        placed++;
        const lineHeight = note.size * 1.25;
        for (const line of note.lines) {
          const band = { left: line.x, right: line.x + font.widthOfTextAtSize(line.text, note.size), bottom: line.y - note.size * 0.25, top: line.y - note.size * 0.25 + lineHeight };
          expect(band.left).toBeGreaterThanOrEqual(0);
          expect(band.right).toBeLessThanOrEqual(size.width);
          expect(band.bottom).toBeGreaterThanOrEqual(0);
          expect(band.top).toBeLessThanOrEqual(size.height);
          // The stamp's text beside its code (stampTextRect), as much of the stamp as is exported.
          for (const area of [...keepClear, stampTextRect(1, corner, size)]) {
            const box = { left: area.x * size.width, right: (area.x + area.width) * size.width, top: size.height - area.y * size.height, bottom: size.height - (area.y + area.height) * size.height };
            const overlaps = band.left < box.right && box.left < band.right && band.bottom < box.top && box.bottom < band.top;
            expect(overlaps).toBe(false);
          }
        }
        expect(note.lines.map((line) => line.text).join(" ")).toBe(CORRECTIONS_CONVENTION);
      }),
      { numRuns: 300 },
    );
    expect(placed).toBeGreaterThan(0);
    // A page covered from top to bottom by one answer area: no place, no note.
    expect(placeNote(CORRECTIONS_CONVENTION, font, size, [{ page: 1, x: 0, y: 0, width: 1, height: 1 }], "top-right")).toBeNull();
    // The foot of a page whose margins are clear.
    expect(placeNote(CORRECTIONS_CONVENTION, font, size, [], "top-right")!.lines).toHaveLength(1);
  });
});

describeOnEachDatabase("printing the corrections convention", (database) => {
  let school: School;
  let storageRoot: string;
  let paperFileId: string;
  let paperPages: number;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-convention-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "Convention");
    ({ fileId: paperFileId, pageCount: paperPages } = await uploadDemoPaper(school));
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** A batch on the demo paper whose one question's area (page 1, low on the page) holds tick boxes or not. */
  async function batchWith({ tickBoxes }: { tickBoxes: boolean }) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Mock", page_count: paperPages, source_file_id: paperFileId });
    const question = crypto.randomUUID();
    const boxes = ["A", "B", "C", "D"].map((label, index) => ({ label, x: 0.15 + index * 0.1, y: 0.62, width: 0.025, height: 0.018, shape: "square" as const }));
    await teacher.exam.templates.save({
      template_id: template.id,
      body: {
        questions: [{ id: question, parent_id: null, label: "1", order: 0, max_marks: 1, answer_type: tickBoxes ? "multiple_choice" : null, mark_scheme: tickBoxes ? { type: "multiple_choice", correct: ["B"], allow_multiple: false } : null, spec_ref: null, is_container: false }],
        response_areas: [{ id: crypto.randomUUID(), question_id: question, page: 1, kind: "response", response_form: "box", x: 0.1, y: 0.6, width: 0.6, height: 0.06, tick_boxes: tickBoxes ? boxes : null }],
        boundaries: [],
      } as never,
    });
    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: "10A mock" });
    return { batch, roster };
  }

  it(
    "prints it on each script's first page when the paper has tick boxes, not otherwise, and an anonymous batch's print still names nobody",
    async () => {
      const ticks = await batchWith({ tickBoxes: true });
      const printed = await printScripts(database().db, school.teacher.id, ticks.batch.id, {});
      const pages = await pdfTextPages(printed.pdf);
      expect(pages).toHaveLength(2 * paperPages);
      expect(pages.map(holdsConvention)).toEqual(pages.map((_, index) => index % paperPages === 0));

      const written = await batchWith({ tickBoxes: false });
      expect((await pdfTextPages((await printScripts(database().db, school.teacher.id, written.batch.id, {})).pdf)).some(holdsConvention)).toBe(false);

      await as(school.teacher).exam.batches.setAnonymous({ batch_id: ticks.batch.id, anonymous: true });
      const anonymous = await pdfTextPages((await printScripts(database().db, school.teacher.id, ticks.batch.id, {})).pdf);
      expect(anonymous.map(holdsConvention)).toEqual(anonymous.map((_, index) => index % paperPages === 0));
      const names = ticks.roster.students.map((student) => student.full_name).filter((name) => name.length > 0);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(anonymous.join("\n")).not.toContain(name);
      expect(pages.join("\n")).toContain(names[0]!);
    },
    timeoutFor(10),
  );
});
