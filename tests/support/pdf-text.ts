import { loadPdfJs, standardFontDataUrl } from "../../server/intake/imaging/pdfjs";

/**
 * The text layer of every page of a PDF as pdfjs reads it (what a viewer's search and copy see): each
 * page's text items in drawing order, joined by a line break.
 */
export async function pdfTextPages(pdf: Uint8Array): Promise<string[]> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, verbosity: 0 });
  try {
    const document = await task.promise;
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const content = await (await document.getPage(number)).getTextContent();
      pages.push(content.items.map((item) => ("str" in item ? item.str : "")).join("\n"));
    }
    return pages;
  } finally {
    await task.destroy();
  }
}
