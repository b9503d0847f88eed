import { LineCapStyle, PDFDocument, type PDFPage, type RGB, rgb } from "pdf-lib";
import type { PageReading } from "../../server/exam/intake/page-reading";
import { encodePageCode } from "../../server/exam/intake/print-code";
import { printedCodeRect } from "../../server/exam/intake/stamp";
import type { AreasReading } from "../../server/exam/ticks/reading";
import type { PileTruth } from "./scanned-pile";
import { seededRandom } from "./seeded-random";
import type { TickPaper } from "./tick-paper";

/**
 * Pen answers on printed scripts, as people make them (issue 36's test data), drawn into the printed
 * PDF before tests/support/scanned-pile.ts scans it (so the copier's damage falls on the pen as on the
 * print): ticks, crosses, a box filled in, faint pencil, a tick overflowing its box, two boxes ticked, a
 * correction (a box filled in and another ticked, CORRECTIONS_CONVENTION), a stray mark beside the boxes;
 * written answers of a few lines, a single word, a single digit, faint pencil, and blank areas. The same
 * seed draws the same answers. The truth is kept per box and per area.
 */

type BoxTruth = "ticked" | "empty" | "filled";
export type TickScenario = "tick" | "cross" | "none" | "pencil" | "overflow" | "two" | "correction" | "stray" | "bold";
export type WrittenScenario = "lines" | "word" | "digit" | "pencil-word" | "blank";

export interface PageTruth {
  /** 1-based page of the printed PDF. */
  printedPage: number;
  /** The paper's page it is a copy of. */
  paperPage: number;
  tickAreas: { id: string; scenario: TickScenario; boxes: { label: string; truth: BoxTruth }[]; answer: string[] }[];
  writtenAreas: { id: string; scenario: WrittenScenario; written: boolean }[];
}

export interface PenAnswers {
  pdf: Uint8Array;
  truth: PageTruth[];
}

const TICK_WEIGHTS: [TickScenario, number][] = [
  ["tick", 26],
  ["cross", 14],
  ["none", 8],
  ["pencil", 12],
  ["overflow", 8],
  ["two", 8],
  ["correction", 10],
  ["stray", 8],
  ["bold", 6],
];
const WRITTEN_WEIGHTS: [WrittenScenario, number][] = [
  ["lines", 3],
  ["word", 3],
  ["digit", 2],
  ["pencil-word", 2],
  ["blank", 5],
];

const MM = 72 / 25.4;

/** Draws answers on every page of `printed` (scripts of `paper.pages.length` pages each, in order). */
export async function penAnswers(printed: Uint8Array, paper: TickPaper, seed: number, mix: { tick?: [TickScenario, number][]; written?: [WrittenScenario, number][] } = {}): Promise<PenAnswers> {
  const random = seededRandom(seed);
  const document = await PDFDocument.load(printed, { updateMetadata: false });
  const truth: PageTruth[] = [];
  document.getPages().forEach((page, index) => {
    const paperPage = (index % paper.pages.length) + 1;
    const layout = paper.pages[paperPage - 1]!;
    const pen = new Pen(page, random);
    const pageTruth: PageTruth = { printedPage: index + 1, paperPage, tickAreas: [], writtenAreas: [] };
    for (const area of layout.tickAreas) {
      const scenario = weighted(mix.tick ?? TICK_WEIGHTS, random);
      const boxes: { label: string; truth: BoxTruth }[] = area.boxes.map((box) => ({ label: box.label, truth: "empty" }));
      const rects = area.boxes.map((box) => pen.rectOf(box));
      const pick = () => Math.floor(random() * boxes.length);
      const chosen = pick();
      const ink = pen.penInk();
      switch (scenario) {
        case "none":
          break;
        case "tick":
        case "overflow":
        case "bold":
          pen.tick(rects[chosen]!, ink, { overflow: scenario === "overflow", width: scenario === "bold" ? 0.9 : undefined });
          boxes[chosen]!.truth = "ticked";
          break;
        case "cross":
          pen.cross(rects[chosen]!, ink);
          boxes[chosen]!.truth = "ticked";
          break;
        case "pencil":
          pen.tick(rects[chosen]!, pen.pencil(), { width: 0.3 });
          boxes[chosen]!.truth = "ticked";
          break;
        case "two": {
          const other = (chosen + 1 + Math.floor(random() * (boxes.length - 1))) % boxes.length;
          pen.tick(rects[chosen]!, ink, {});
          pen.tick(rects[other]!, ink, {});
          boxes[chosen]!.truth = "ticked";
          boxes[other]!.truth = "ticked";
          break;
        }
        case "correction": {
          const right = (chosen + 1 + Math.floor(random() * (boxes.length - 1))) % boxes.length;
          pen.fill(rects[chosen]!, ink);
          boxes[chosen]!.truth = "filled";
          if (random() < 0.5) pen.cross(rects[right]!, ink);
          else pen.tick(rects[right]!, ink, {});
          boxes[right]!.truth = "ticked";
          break;
        }
        case "stray": {
          pen.tick(rects[chosen]!, ink, {});
          boxes[chosen]!.truth = "ticked";
          const last = rects[rects.length - 1]!;
          pen.stroke([{ x: last.right + 6 * MM, y: last.top + 1 * MM }, { x: last.right + 9 * MM, y: last.bottom - 1 * MM }], ink, 0.5);
          break;
        }
      }
      pageTruth.tickAreas.push({ id: area.id, scenario, boxes, answer: boxes.filter((box) => box.truth === "ticked").map((box) => box.label) });
    }
    for (const area of layout.writtenAreas) {
      let scenario = weighted(mix.written ?? WRITTEN_WEIGHTS, random);
      if (area.kind === "digit" && scenario !== "blank") scenario = "digit";
      if (area.kind !== "digit" && scenario === "digit") scenario = "word";
      const rect = pen.rectOf(area);
      const ink = pen.penInk();
      if (scenario === "lines") pen.writeLines(rect, ink, 8 * MM);
      else if (scenario === "word") pen.word(rect, ink, 2 + Math.floor(random() * 4), 0.4);
      else if (scenario === "pencil-word") pen.word(rect, pen.pencil(), 2 + Math.floor(random() * 3), 0.3);
      else if (scenario === "digit") pen.seven(rect, ink);
      pageTruth.writtenAreas.push({ id: area.id, scenario, written: scenario !== "blank" });
    }
    truth.push(pageTruth);
  });
  return { pdf: await document.save(), truth };
}

interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface At {
  x: number;
  y: number;
}

/** Draws in page points measured from the top left (PDF's y is flipped here). */
class Pen {
  private readonly height: number;
  private readonly width: number;
  constructor(
    private readonly page: PDFPage,
    private readonly random: () => number,
  ) {
    ({ width: this.width, height: this.height } = page.getSize());
  }

  rectOf(area: { x: number; y: number; width: number; height: number }): Rect {
    return { left: area.x * this.width, right: (area.x + area.width) * this.width, top: area.y * this.height, bottom: (area.y + area.height) * this.height };
  }

  /** A ballpoint or fountain pen: black or dark blue. */
  penInk(): RGB {
    return this.random() < 0.5 ? rgb(0.08, 0.08, 0.1) : rgb(0.1, 0.15, 0.45);
  }

  /** A pencil, pale. */
  pencil(): RGB {
    const grey = 0.5 + this.random() * 0.12;
    return rgb(grey, grey, grey);
  }

  private jitter(amount: number) {
    return (this.random() * 2 - 1) * amount;
  }

  stroke(points: At[], colour: RGB, widthMm: number) {
    const [first, ...rest] = points;
    const path = `M ${first!.x} ${first!.y} ${rest.map((point) => `L ${point.x} ${point.y}`).join(" ")}`;
    this.page.drawSvgPath(path, { x: 0, y: this.height, borderColor: colour, borderWidth: widthMm * MM, borderLineCap: LineCapStyle.Round });
  }

  private curve(path: string, colour: RGB, widthMm: number) {
    this.page.drawSvgPath(path, { x: 0, y: this.height, borderColor: colour, borderWidth: widthMm * MM, borderLineCap: LineCapStyle.Round });
  }

  private inBox(box: Rect, u: number, v: number): At {
    return { x: box.left + (box.right - box.left) * u, y: box.top + (box.bottom - box.top) * v };
  }

  tick(box: Rect, colour: RGB, { overflow = false, width }: { overflow?: boolean; width?: number }) {
    const j = () => this.jitter(0.08);
    const start = this.inBox(box, 0.2 + j(), 0.5 + j());
    const low = this.inBox(box, 0.42 + j(), 0.8 + j() / 2);
    const end = overflow ? this.inBox(box, 1.3 + j() * 3, -0.6 + j() * 3) : this.inBox(box, 0.82 + j(), 0.18 + j());
    this.stroke([start, low, end], colour, width ?? 0.4 + this.random() * 0.3);
  }

  cross(box: Rect, colour: RGB) {
    const j = () => this.jitter(0.07);
    const width = 0.4 + this.random() * 0.3;
    this.stroke([this.inBox(box, 0.2 + j(), 0.2 + j()), this.inBox(box, 0.8 + j(), 0.8 + j())], colour, width);
    this.stroke([this.inBox(box, 0.8 + j(), 0.2 + j()), this.inBox(box, 0.2 + j(), 0.8 + j())], colour, width);
  }

  /** Filled in: a dense scribble over the whole box, a little beyond it. */
  fill(box: Rect, colour: RGB) {
    const points: At[] = [];
    const rows = 9;
    for (let row = 0; row <= rows; row++) {
      const v = -0.05 + (1.1 * row) / rows;
      points.push(this.inBox(box, row % 2 === 0 ? -0.05 : 1.05, v + this.jitter(0.02)));
      points.push(this.inBox(box, row % 2 === 0 ? 1.05 : -0.05, v + 0.055 + this.jitter(0.02)));
    }
    this.stroke(points, colour, 1.1);
  }

  /** Handwriting-like words along lines `spacing` apart inside `box`, one to all of its lines. */
  writeLines(box: Rect, colour: RGB, spacing: number) {
    const lines = Math.max(1, Math.floor((box.bottom - box.top) / spacing));
    const used = 1 + Math.floor(this.random() * lines);
    for (let line = 0; line < used; line++) {
      let x = box.left + 6 * MM + this.random() * 4 * MM;
      const baseline = box.top + (line + 1) * spacing - 1.2 * MM;
      const end = line === used - 1 ? x + (box.right - x) * (0.2 + this.random() * 0.6) : box.right - 8 * MM;
      while (x < end) {
        const letters = 2 + Math.floor(this.random() * 6);
        x = this.letters(x, baseline, letters, colour, 0.4) + 2.5 * MM;
      }
    }
  }

  /** One word of `letters` letters, placed at random in the box. */
  word(box: Rect, colour: RGB, letters: number, widthMm: number) {
    const wordWidth = letters * 2.6 * MM;
    const x = box.left + 20 * MM * Math.min(1, (box.right - box.left) / (60 * MM)) + this.random() * Math.max(0, box.right - box.left - wordWidth - 30 * MM);
    const baseline = box.top + (box.bottom - box.top) * (0.55 + this.random() * 0.2);
    this.letters(Math.min(x, box.right - wordWidth - 3 * MM), baseline, letters, colour, widthMm);
  }

  /** Joined-up letters as loops and humps of cubic curves; returns where the word ends. */
  private letters(x: number, baseline: number, count: number, colour: RGB, widthMm: number): number {
    const h = (2.4 + this.random() * 0.8) * MM;
    let path = `M ${x} ${baseline}`;
    for (let letter = 0; letter < count; letter++) {
      const w = (2 + this.random() * 1.2) * MM;
      const tall = this.random() < 0.3 ? 1.8 : 1;
      path += ` C ${x + w * 0.1} ${baseline - h * tall * 1.2} ${x + w * 0.9} ${baseline - h * tall} ${x + w * 0.55} ${baseline - h * 0.2}`;
      path += ` S ${x + w * 0.8} ${baseline + this.jitter(0.4 * MM)} ${x + w} ${baseline}`;
      x += w;
    }
    this.curve(path, colour, widthMm);
    return x;
  }

  /** A single "7", about 8 mm tall, somewhere in the box. */
  seven(box: Rect, colour: RGB) {
    const size = (7 + this.random() * 3) * MM;
    const x = box.left + (box.right - box.left - size * 0.6) * (0.2 + this.random() * 0.6);
    const y = box.top + (box.bottom - box.top - size) * (0.2 + this.random() * 0.6);
    this.stroke([{ x, y: y + this.jitter(MM * 0.5) }, { x: x + size * 0.6, y }, { x: x + size * 0.2 + this.jitter(MM), y: y + size }], colour, 0.4 + this.random() * 0.2);
  }
}

/** A valid batch code (print-code.ts's alphabet) made from a seed. */
export function batchCodeOf(seed: number): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let state = seed;
  return Array.from({ length: 6 }, () => alphabet[(state = (state * 1103515245 + 12345) % 2147483648) % 32]).join("");
}

/** What filing will ask of a page: its template page, where its code was printed, its areas. */
export function areasInput(paper: TickPaper, reading: PageReading, truth: Extract<PileTruth, { kind: "printed" }>, batchCode: string) {
  const layout = paper.pages[truth.page - 1]!;
  const code = reading.code ?? encodePageCode({ batchCode, scriptNumber: truth.scriptNumber, page: truth.page });
  const { page: _page, ...codeRect } = printedCodeRect(paper.pageSizes, paper.keepClear, truth.page, code);
  return {
    onePagePdf: reading.onePagePdf,
    rotation: reading.rotation,
    paper: paper.bytes,
    page: truth.page,
    code: codeRect,
    tickAreas: layout.tickAreas,
    writtenAreas: layout.writtenAreas.map(({ kind: _kind, ...area }) => area),
  };
}

/** The reading against the truth. */
/** The readings against the truth (used by tests/ticks-reading.test.ts and bench:ticks). */
export function score(results: { truth: PageTruth; reading: AreasReading }[]) {
  const figures = { boxes: 0, boxesDecided: 0, answers: 0, answersDecided: 0, wrongAnswers: 0, wrongDetails: [] as string[], undecidedDetails: [] as string[], writtenAreas: 0, falseBlanks: 0, falseBlankDetails: [] as string[], writtenMissDetails: [] as string[], blankMissDetails: [] as string[], blankAreas: 0, blanksFound: 0, writtenFound: 0, byContent: 0, notAligned: 0, emptyMaxInk: 0, tickedMinInk: 1 };
  for (const { truth, reading } of results) {
    if (reading.alignment.by === "content") figures.byContent++;
    if (reading.alignment.by === "none") figures.notAligned++;
    for (const area of truth.tickAreas) {
      const read = reading.tickAreas.find((candidate) => candidate.id === area.id)!;
      figures.answers++;
      figures.boxes += read.boxes.length;
      figures.boxesDecided += read.boxes.filter((box) => box.state !== "uncertain").length;
      read.boxes.forEach((box, index) => {
        const boxTruth = area.boxes[index]!.truth;
        if (boxTruth === "empty") figures.emptyMaxInk = Math.max(figures.emptyMaxInk, box.ink);
        if (boxTruth === "ticked") figures.tickedMinInk = Math.min(figures.tickedMinInk, box.ink);
      });
      if (read.answer === null) {
        figures.undecidedDetails.push(`page ${truth.printedPage} ${area.id} (${area.scenario}): ${read.boxes.map((box) => `${box.label} ${box.state} ${box.ink}`).join(", ")}`);
        continue;
      }
      figures.answersDecided++;
      if (read.answer.join(",") !== area.answer.join(",")) {
        figures.wrongAnswers++;
        figures.wrongDetails.push(`page ${truth.printedPage} ${area.id} (${area.scenario}): read ${read.answer.join(",") || "none"}, truth ${area.answer.join(",") || "none"}; ink ${read.boxes.map((box) => box.ink).join(" ")}`);
      }
    }
    for (const area of truth.writtenAreas) {
      const read = reading.writtenAreas.find((candidate) => candidate.id === area.id)!;
      if (area.written) {
        figures.writtenAreas++;
        if (read.blank === "written") figures.writtenFound++;
        else figures.writtenMissDetails.push(`page ${truth.printedPage} ${area.id} (${area.scenario}): ${read.blank}, ink ${read.ink}${read.reason ? ` (${read.reason})` : ""}`);
        if (read.blank === "blank") {
          figures.falseBlanks++;
          figures.falseBlankDetails.push(`page ${truth.printedPage} ${area.id} (${area.scenario}): ink ${read.ink}`);
        }
      } else {
        figures.blankAreas++;
        if (read.blank === "blank") figures.blanksFound++;
        else figures.blankMissDetails.push(`page ${truth.printedPage} ${area.id}: ${read.blank}, ink ${read.ink}${read.reason ? ` (${read.reason})` : ""}`);
      }
    }
  }
  return figures;
}

function weighted<T>(choices: [T, number][], random: () => number): T {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let pick = random() * total;
  for (const [choice, weight] of choices) {
    pick -= weight;
    if (pick < 0) return choice;
  }
  return choices[choices.length - 1]![0];
}

