import { PDFDocument } from "pdf-lib";
import { AppError } from "../../../errors";
import { checkPageSize, checkPageStreams, countPages } from "./limits";

/**
 * Opening a PDF a person sent, checked before anything is read from its pages: what pdf-lib cannot
 * parse, a page tree that loops or unfolds beyond `maxPages`, and a page larger than any paper are
 * refused with a sentence for the teacher (AppError "invalid": the file itself). Only pdf-lib and
 * limits.ts, no pixels: the imaging worker uses it for piles and scans, and a paper upload where no
 * worker runs (tests) can use it on its own thread.
 */

/** What the sentences call the file. */
export type SentPdf = "pile" | "scan" | "paper";

const whatToDo: Record<SentPdf, string> = {
  pile: "Scan the pile again, or save it as PDF from the copier.",
  scan: "Scan it again, or save it as PDF from the copier.",
  paper: "Export the paper as PDF again.",
};

const tooManyPages: Record<SentPdf, (maxPages: string) => string> = {
  pile: (maxPages) => `This PDF has more than ${maxPages} pages, more than one pile may have: split it into smaller piles and upload each.`,
  scan: (maxPages) => `This PDF has more than ${maxPages} pages, more than one scan may have.`,
  paper: (maxPages) => `This PDF has more than ${maxPages} pages, more than an exam paper may have: upload the paper alone.`,
};

export async function openCheckedPdf(pdf: Uint8Array, { maxPages, what }: { maxPages: number; what: SentPdf }): Promise<{ document: PDFDocument; pageCount: number }> {
  let document: PDFDocument;
  let pageCount: number;
  try {
    // Encrypted scans (a copier's "secure PDF") open too: only the page streams are copied, never decrypted text.
    document = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
    countPages(document, maxPages, () => new AppError("invalid", tooManyPages[what](maxPages.toLocaleString("en-GB")), "file"));
    // pdf-lib's own count, now that the tree is known to end (it may skip nodes the walk counted).
    pageCount = document.getPageCount();
    document.getPages().forEach((page, index) => {
      const { width, height } = page.getSize();
      checkPageSize(width, height, index + 1);
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    // pdf-lib throws its own errors on a damaged object (a size that is not a box, a broken reference).
    throw new AppError("invalid", `The file is not a PDF that can be read: ${unreadableReason(pdf, error)}. ${whatToDo[what]}`, "file");
  }
  return { document, pageCount };
}

function unreadableReason(pdf: Uint8Array, error: unknown): string {
  // A PDF starts with "%PDF-" (within its first kilobyte, by the specification's tolerance).
  if (!Buffer.from(pdf.buffer, pdf.byteOffset, Math.min(pdf.byteLength, 1024)).includes("%PDF-")) return "it is not a PDF file";
  if (error instanceof Error && /encrypt/i.test(error.message)) return "it is protected by a password";
  return "it is damaged or cut short";
}

/** The most pages a template paper may have. */
const MAX_PAPER_PAGES = 200;

/**
 * A template paper checked as a pile's pages are (openCheckedPdf, then every stream of the file
 * against limits.ts): its page count, or the sentence that refuses it. No page is rendered.
 */
export async function inspectPaper(pdf: Uint8Array): Promise<{ pageCount: number }> {
  const { document, pageCount } = await openCheckedPdf(pdf, { maxPages: MAX_PAPER_PAGES, what: "paper" });
  if (pageCount < 1) throw new AppError("invalid", "This PDF has no pages. Export the paper as PDF again.", "file");
  await checkPageStreams(document, null);
  return { pageCount };
}
