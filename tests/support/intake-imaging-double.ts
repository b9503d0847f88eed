import { renderSignInSlips } from "../../server/identity/sign-in-slips-pdf";
import { inspectPaper } from "../../server/exam/intake/imaging/inspect";
import { redactScript, redactedPageImage } from "../../server/exam/intake/imaging/redact";
import { readAreas } from "../../server/exam/intake/imaging/read-areas";
import { answerCrop } from "../../server/exam/intake/imaging/answer-crop";
import { PDFDocument, PDFName, PDFNumber, PDFString, degrees } from "pdf-lib";
import { AppError } from "../../server/errors";
import type { IntakeImaging } from "../../server/exam/intake/imaging-port";
import type { AssembleScript, PageReading, QuarterTurn, ReadPile } from "../../server/exam/intake/page-reading";
import { stampScripts } from "../../server/exam/intake/stamp";
import { findTickBoxes } from "../../server/exam/intake/imaging/find-tick-boxes";
import { proposeTemplate } from "../../server/exam/template-reading/read-paper";
import { readMarkSchemePdf } from "../../server/exam/mark-scheme/read-scheme-pdf";

/**
 * A stand-in for intake's imaging (server/exam/intake/imaging/, pixels and QR codes in a worker thread), whose
 * behaviour is obvious: a test pile is a PDF of tiny pages, each carrying in its page dictionary the
 * code its QR would read as (`MarkbookCode`, absent for a page whose code cannot be read) and the turn
 * that puts it upright (`MarkbookTurn`). `readPile` reads those back; `assembleScript` joins pages with
 * pdf-lib and turns each. The real pixels-to-code path is tested in tests/intake-imaging*.test.ts and
 * the lead's end-to-end intake test.
 */

const CODE = PDFName.of("MarkbookCode");
const TURN = PDFName.of("MarkbookTurn");
/** Which scanned sheet a page is, so a test can follow every page to where it was filed. */
const LABEL = PDFName.of("MarkbookLabel");

export interface TestSheet {
  /** A name for the sheet, unique in a test (e.g. "s3p2"). */
  label: string;
  /** What its QR code reads as; null: unreadable (torn, smudged). */
  code: string | null;
  /** Clockwise degrees that turn it upright (an upside-down page: 180). */
  turn?: QuarterTurn;
}

/** A scanned pile as a PDF: one small page per sheet, in pile order. */
export async function testPile(sheets: TestSheet[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  for (const sheet of sheets) {
    const page = pdf.addPage([200, 280]);
    page.node.set(LABEL, PDFString.of(sheet.label));
    if (sheet.code !== null) page.node.set(CODE, PDFString.of(sheet.code));
    page.node.set(TURN, PDFNumber.of(sheet.turn ?? 0));
    page.drawText(sheet.label, { x: 20, y: 240, size: 12 });
  }
  return pdf.save();
}

const textOf = (value: unknown) => (value instanceof PDFString ? value.decodeText() : null);

/** What a script's assembled PDF holds: each page's sheet label and the rotation it was given. */
export async function sheetsOf(pdfBytes: Uint8Array): Promise<{ label: string | null; rotation: number }[]> {
  const pdf = await PDFDocument.load(pdfBytes);
  return pdf.getPages().map((page) => ({ label: textOf(page.node.get(LABEL)), rotation: page.getRotation().angle }));
}

export interface ImagingDouble extends IntakeImaging {
  /** The `fromPage` of every readPile call, in order. */
  readsFrom: number[];
  /** Makes the next readPile throw after yielding this many pages (a crash mid-pile), once. */
  crashAfter(pages: number): void;
}

export function imagingDouble(): ImagingDouble {
  const readsFrom: number[] = [];
  let crashAfter: number | null = null;

  const readPile: ReadPile = async function* (bytes, options = {}) {
    const fromPage = options.fromPage ?? 1;
    readsFrom.push(fromPage);
    const crashAt = crashAfter;
    crashAfter = null;
    let pile: PDFDocument;
    let pages: ReturnType<PDFDocument["getPages"]>;
    try {
      pile = await PDFDocument.load(bytes);
      pages = pile.getPages();
    } catch {
      throw new AppError("invalid", "The pile could not be opened: the PDF is damaged");
    }
    let yielded = 0;
    for (let index = fromPage - 1; index < pages.length; index++) {
      if (crashAt !== null && yielded === crashAt) throw new Error("simulated crash mid-pile");
      const node = pages[index]!.node;
      const code = textOf(node.get(CODE));
      const one = await PDFDocument.create();
      const [copy] = await one.copyPages(pile, [index]);
      one.addPage(copy);
      const turn = node.get(TURN);
      const reading: PageReading = {
        pilePage: index + 1,
        pileSize: pages.length,
        onePagePdf: await one.save(),
        code,
        rotation: code === null ? 0 : (((turn instanceof PDFNumber ? turn.asNumber() : 0) % 360) as QuarterTurn),
      };
      yielded++;
      yield reading;
    }
  };

  const assembleScript: AssembleScript = async (pages) => {
    const script = await PDFDocument.create();
    for (const page of pages) {
      const source = await PDFDocument.load(page.onePagePdf);
      const [copy] = await script.copyPages(source, [0]);
      copy!.setRotation(degrees(page.rotation));
      script.addPage(copy);
    }
    return script.save();
  };

  // Stamping is plain pdf-lib, run here on the test's thread; a crop needs pixels, which the double's pages do not have.
  const stamp: IntakeImaging["stamp"] = (paper, batchCode, scripts, keepClear, options) => stampScripts(paper, batchCode, scripts, keepClear, options);
  const nameBoxCrop: IntakeImaging["nameBoxCrop"] = () => Promise.resolve(null);
  // Redaction is the real one: it needs no worker, and tests check its pixels.
  return { readPile, assembleScript, stamp, nameBoxCrop, redactScript, redactedPageImage, inspectPaper, signInSlips: renderSignInSlips, readAreas, answerCrop, readsFrom, crashAfter: (pages) => void (crashAfter = pages), findTickBoxes, proposeTemplate, readMarkScheme: (pdf) => readMarkSchemePdf(pdf) };
}
