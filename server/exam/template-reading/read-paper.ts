import { PDFDocument } from "pdf-lib";
import { AppError } from "../../errors";
import { openCheckedPdf } from "../intake/imaging/inspect";
import { DECODE_PIXEL_LIMIT, PAGE_PIXEL_CAP, cappedDpi, checkPageStreams } from "../intake/imaging/limits";
import { type RenderablePdf, loadPdfJs, openForRendering, standardFontDataUrl } from "../intake/imaging/pdfjs";
import { type PageContent, type TextItem, shapesFromOperators } from "./page-content";
import type { ProposedQuestion, TemplateProposal } from "./proposal";
import { readStructure } from "./read-structure";
import { readScannedPages } from "./scan-threads";
import type { ScannedArea } from "./scanned-page";

/**
 * The imaging worker's `proposeTemplate` (issue 37, item 1): a template proposed from a paper's PDF.
 * Bounded as every file a person sends (inspect.ts, limits.ts): the file opened and its page tree
 * walked by pdf-lib, every stream checked before pdfjs decodes anything; at most MAX_READ_PAGES pages,
 * MAX_TEXT_ITEMS pieces of text and MAX_OPERATORS drawing operations a page; a page with no text is
 * rendered within the pixel cap and read from its image. Each page's text and drawings come from pdfjs
 * (getTextContent, getOperatorList); the reading itself is pure (read-structure.ts, scanned-page.ts).
 */

/** The most pages read: a long exam paper is 40; a class set sent by mistake is refused with a sentence. */
export const MAX_READ_PAGES = 60;
/** Pieces of text on one page: an exam page has a few hundred. */
const MAX_TEXT_ITEMS = 20_000;
/** Drawing operations on one page: an exam page has a few thousand; a map or a photograph's vector tracing far more. */
const MAX_OPERATORS = 400_000;
/** The resolution a page without text is read at: a ruled line of 0.5 pt is a pixel or two. */
const SCAN_DPI = 150;

export async function proposeTemplate(paper: Uint8Array): Promise<TemplateProposal> {
  const { document: checked, pageCount } = await openCheckedPdf(paper, { maxPages: MAX_READ_PAGES, what: "paper" });
  if (pageCount < 1) throw new AppError("invalid", "This PDF has no pages. Export the paper as PDF again.", "file");
  await checkPageStreams(checked, null);
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(paper), standardFontDataUrl, verbosity: 0, maxImageSize: DECODE_PIXEL_LIMIT, canvasMaxAreaInBytes: PAGE_PIXEL_CAP * 4, isOffscreenCanvasSupported: false });
  let renderable: RenderablePdf | null = null;
  try {
    const document = await task.promise.catch(() => {
      throw new AppError("invalid", "This paper's PDF cannot be read: export the paper as PDF again", "file");
    });
    const ops = { save: pdfjs.OPS.save, restore: pdfjs.OPS.restore, transform: pdfjs.OPS.transform, constructPath: pdfjs.OPS.constructPath, endPath: pdfjs.OPS.endPath };
    const withText: PageContent[] = [];
    const scanned: { page: number; areas: ScannedArea[] }[] = [];
    const imagePages: { page: number; pdf: Uint8Array }[] = [];
    for (let pageNumber = 1; pageNumber <= Math.min(pageCount, document.numPages); pageNumber++) {
      const page = await document.getPage(pageNumber);
      try {
        const viewport = page.getViewport({ scale: 1 });
        const toPage = (x: number, y: number) => viewport.convertToViewportPoint(x, y) as [number, number];
        const text = await page.getTextContent();
        if (text.items.length > MAX_TEXT_ITEMS) throw tooMuch(pageNumber, "more text than any exam paper's page");
        const texts: TextItem[] = [];
        for (const item of text.items) {
          if (!("str" in item) || item.str.trim().length === 0) continue;
          const [a, b, c, d, e, f] = item.transform as number[];
          // Horizontal text only: a label or a mark written sideways is not read.
          if (Math.abs(b!) > 1e-3 * Math.abs(a!) || !Number.isFinite(e) || !Number.isFinite(f)) continue;
          const [x, baseline] = toPage(e!, f!);
          texts.push({ str: item.str, x, baseline, width: Math.abs(item.width), size: Math.hypot(c!, d!) || Math.abs(item.height) });
        }
        if (texts.length === 0) {
          // A scanned page is one JPEG: decoded as it is (pagePixels, as a pile's pages are) on a page
          // thread (scan-threads.ts), while this thread goes on with the next page.
          const single = await PDFDocument.create({ updateMetadata: false });
          single.addPage((await single.copyPages(checked, [pageNumber - 1]))[0]);
          imagePages.push({ page: pageNumber, pdf: await single.save({ useObjectStreams: false }) });
          continue;
        }
        const operators = await page.getOperatorList();
        if (operators.fnArray.length > MAX_OPERATORS) throw tooMuch(pageNumber, "more drawing than any exam paper's page");
        const shapes = shapesFromOperators(operators.fnArray, operators.argsArray, ops, toPage);
        withText.push({ page: pageNumber, width: viewport.width, height: viewport.height, texts, ...shapes });
      } finally {
        page.cleanup();
      }
    }
    // The pages without text, read on the page threads side by side; one that is not a single JPEG is
    // rendered here (one at a time: at most one page's pixels wait for a thread) and read from its pixels.
    const readings = readScannedPages(imagePages.map(({ pdf }) => ({ kind: "pdf", pdf })));
    // Each awaited in turn below; one that fails while an earlier is awaited is not left unhandled.
    for (const reading of readings) reading.catch(() => undefined);
    for (const [index, { page }] of imagePages.entries()) {
      const areas = await readings[index]!;
      if (areas) {
        scanned.push({ page, areas });
        continue;
      }
      renderable ??= await openForRendering(paper);
      const image = await renderable.render(page, SCAN_DPI);
      const { width, height } = checked.getPage(page - 1).getSize();
      const [fromPixels] = readScannedPages([{ kind: "pixels", image, pxPerMm: cappedDpi(width, height, SCAN_DPI) / 25.4 }]);
      scanned.push({ page, areas: (await fromPixels!) ?? [] });
    }
    const proposal = readStructure(withText, pageCount);
    if (scanned.length > 0) addScanned(proposal, scanned);
    return proposal;
  } finally {
    await task.destroy().catch(() => undefined);
    await renderable?.close();
  }
}

const tooMuch = (page: number, what: string) => new AppError("invalid", `Page ${page} of this PDF cannot be read: it has ${what}. Export the paper as PDF again.`, "file");

/** Pages read from their image: their areas as unlabelled items for the teacher ("Page 2, area 1"), and a sentence saying so. */
function addScanned(proposal: TemplateProposal, scanned: { page: number; areas: ScannedArea[] }[]) {
  for (const { page, areas } of scanned) {
    areas.forEach((area, index) => {
      const item: ProposedQuestion = {
        label: `Page ${page}, area ${index + 1}`,
        parent_label: null,
        max_marks: null,
        page,
        area: area.rect,
        kind: area.from === "ticks" ? "ticks" : "written",
        ...(area.tick_boxes ? { tick_boxes: area.tick_boxes } : {}),
        area_from: area.from,
        confidence: "check",
      };
      proposal.questions.push(item);
    });
    proposal.scanned_pages.push(page);
  }
  const pages = proposal.scanned_pages;
  const list = pages.length === 1 ? `Page ${pages[0]} has` : `Pages ${pages.slice(0, -1).join(", ")} and ${pages.at(-1)} have`;
  proposal.warnings.push(`${list} no text to read (a scan): its boxes and lines are proposed as answer areas; give each its question and marks`);
}
