import { AppError } from "../../../errors";
import { type AreaToSearch, FIND_DPI, findTickBoxesInPage } from "../../ticks/find-boxes";
import type { TickBox } from "../../../../lib/rules/tick-boxes";
import { openCheckedPdf } from "./inspect";
import { cappedDpi, checkPageStreams } from "./limits";
import { openForRendering } from "./pdfjs";

/** The most pages a template paper may have (as inspectPaper). */
const MAX_PAPER_PAGES = 200;

/**
 * The imaging worker's `findTickBoxes`: page `page` of a template paper rendered for the box finder
 * (server/exam/ticks/find-boxes.ts), bounded as the worker's other requests are: the file is opened
 * and its streams checked before anything is decoded (limits.ts), the page rendered within the pixel
 * cap (a page too large for FIND_DPI comes out at a lower resolution, and the boxes are found at that one).
 */
export async function findTickBoxes(paper: Uint8Array, page: number, area: AreaToSearch): Promise<TickBox[]> {
  const { document, pageCount } = await openCheckedPdf(paper, { maxPages: MAX_PAPER_PAGES, what: "paper" });
  if (page < 1 || page > pageCount) throw new AppError("invalid", `Page ${page} is beyond the paper's ${pageCount === 1 ? "1 page" : `${pageCount} pages`}`, "page");
  await checkPageStreams(document, null);
  const renderable = await openForRendering(paper).catch(() => {
    throw new AppError("invalid", "This paper's PDF cannot be drawn: upload the paper's PDF to its template again", "file");
  });
  try {
    const image = await renderable.render(page, FIND_DPI);
    const { width, height } = document.getPage(page - 1).getSize();
    return findTickBoxesInPage(image, area, cappedDpi(width, height, FIND_DPI) / 25.4);
  } finally {
    await renderable.close();
  }
}
