import { loadPdfJs, standardFontDataUrl } from "../../server/exam/intake/imaging/pdfjs";

/**
 * The text layer of every page of a PDF as pdfjs reads it (what a viewer's search and copy see): each
 * page's text items in drawing order, joined by a line break.
 */
export async function pdfTextPages(pdf: Uint8Array): Promise<string[]> {
  return (await pdfTextAndInfo(pdf)).pages;
}

/** pdfTextPages, and the document's information and XMP metadata (Title, Author, Subject, Keywords …) as one string. */
export async function pdfTextAndInfo(pdf: Uint8Array): Promise<{ pages: string[]; info: string }> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, verbosity: 0 });
  try {
    const document = await task.promise;
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const content = await (await document.getPage(number)).getTextContent();
      pages.push(content.items.map((item) => ("str" in item ? item.str : "")).join("\n"));
    }
    const { info, metadata } = await document.getMetadata();
    return { pages, info: JSON.stringify(info) + (metadata ? JSON.stringify([...metadata]) : "") };
  } finally {
    await task.destroy();
  }
}
