import { PDFDocument, type PDFFont, type PDFPage, rgb } from "pdf-lib";
import { drawableText, embedNameFonts } from "../pdf/fonts";
import { isPlaceholderEmail } from "./placeholder-email";
import type { SignInSlipSheet } from "./sign-in-slips";

/**
 * Sign-in slips on A4: two columns of five slips (105 × 59.4 mm each), dashed cut lines between them,
 * in the order given (sorted by class, then surname). Names print in the fonts of server/pdf/fonts.ts,
 * so "Łukasz", "Şükrü" and "Дмитрий" print as written. Runs in the imaging worker, where the fonts are
 * read once.
 */

const A4 = { width: 595.28, height: 841.89 };
const COLUMNS = 2;
const ROWS = 5;
const SLIPS_PER_PAGE = COLUMNS * ROWS;
const MM = 72 / 25.4;
const PADDING = 7 * MM;
const INK = rgb(0, 0, 0);
const GREY = rgb(0.35, 0.35, 0.35);
const CUT = rgb(0.6, 0.6, 0.6);

/** `value` as `font` draws it, at `size` or smaller (down to 6 pt), cut with "…" when it still does not fit. */
function fitted(value: string, font: PDFFont, size: number, maxWidth: number): { text: string; size: number } {
  let drawn = drawableText(value, font);
  let fitSize = size;
  while (fitSize > 6 && font.widthOfTextAtSize(drawn, fitSize) > maxWidth) fitSize -= 0.5;
  while (drawn.length > 1 && font.widthOfTextAtSize(drawn, fitSize) > maxWidth) drawn = `${[...drawn].slice(0, -2).join("")}…`;
  return { text: drawn, size: fitSize };
}

export async function renderSignInSlips(sheet: SignInSlipSheet): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle("Sign-in slips");
  doc.setCreator("Markbook");
  doc.setProducer("Markbook");
  const { regular, bold } = await embedNameFonts(doc);
  const slipWidth = A4.width / COLUMNS;
  const slipHeight = A4.height / ROWS;
  const textWidth = slipWidth - 2 * PADDING;
  let page: PDFPage | null = null;

  for (const [index, slip] of sheet.slips.entries()) {
    const onPage = index % SLIPS_PER_PAGE;
    if (onPage === 0) {
      page = doc.addPage([A4.width, A4.height]);
      drawCutLines(page, slipWidth, slipHeight);
    }
    const left = (onPage % COLUMNS) * slipWidth + PADDING;
    const top = A4.height - Math.floor(onPage / COLUMNS) * slipHeight - PADDING;
    let y = top;
    const line = (value: string, font: PDFFont, size: number, color = INK, gapAfter = 4) => {
      const fit = fitted(value, font, size, textWidth);
      y -= fit.size;
      page!.drawText(fit.text, { x: left, y, size: fit.size, font, color });
      y -= gapAfter;
    };
    line(`${sheet.school_name} · Markbook`, regular, 8, GREY, 6);
    line(slip.full_name, bold, 13, INK, 3);
    line(slip.class_name, regular, 9, GREY, 8);
    line(`Sign in at ${sheet.sign_in_address}`, regular, 9);
    line(`Username: ${slip.username}`, regular, 9, INK, !isPlaceholderEmail(slip.email) ? 4 : 6);
    // An imported pupil with no email has a placeholder address: the username is what they type.
    if (!isPlaceholderEmail(slip.email)) line(`or email: ${slip.email}`, regular, 9, INK, 6);
    line("Temporary password:", regular, 9, INK, 3);
    line(slip.temporary_password, bold, 14, INK, 6);
    line("You will choose your own password when you first sign in.", regular, 8, GREY);
  }
  return doc.save();
}

function drawCutLines(page: PDFPage, slipWidth: number, slipHeight: number) {
  const dashed = { thickness: 0.5, color: CUT, dashArray: [4, 3] };
  for (let column = 1; column < COLUMNS; column++) {
    page.drawLine({ start: { x: column * slipWidth, y: 0 }, end: { x: column * slipWidth, y: A4.height }, ...dashed });
  }
  for (let row = 1; row < ROWS; row++) {
    page.drawLine({ start: { x: 0, y: row * slipHeight }, end: { x: A4.width, y: row * slipHeight }, ...dashed });
  }
}
