import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import fontkit from "@pdf-lib/fontkit";
import type { PDFDocument, PDFFont } from "pdf-lib";

/**
 * The fonts of every PDF Markbook writes with people's names in it (the stamps of printed scripts, the
 * sign-in slips): DejaVu Sans from the `dejavu-fonts-ttf` package, which covers Latin with its
 * extensions (Polish, Turkish, Czech, Vietnamese …), Greek and Cyrillic. The standard PDF fonts cover
 * Windows-1252 only, so "Łukasz" printed as "?ukasz". Each document embeds a subset (the glyphs it
 * draws), a few kilobytes instead of the 700 kB of the TrueType file; the file is read once per process.
 */

export interface NameFonts {
  regular: PDFFont;
  bold: PDFFont;
}

const require = createRequire(import.meta.url);
/**
 * The package's folder, found by its package.json (as pdfjs.ts finds pdfjs-dist's fonts): a path
 * built at run time, which bundlers leave alone (Next's bundle of the print route imports this module
 * through stamp.ts, and cannot bundle a .ttf).
 */
const fontFolder = () => path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
const files = { regular: "DejaVuSans.ttf", bold: "DejaVuSans-Bold.ttf" } as const;
const cache = new Map<keyof typeof files, Uint8Array>();

function fontBytes(weight: keyof typeof files): Uint8Array {
  const known = cache.get(weight);
  if (known) return known;
  const bytes = new Uint8Array(readFileSync(path.join(fontFolder(), files[weight])));
  cache.set(weight, bytes);
  return bytes;
}

/** Embeds the two weights in `doc`, each subset to the characters the document draws. */
export async function embedNameFonts(doc: PDFDocument): Promise<NameFonts> {
  doc.registerFontkit(fontkit);
  const [regular, bold] = await Promise.all([doc.embedFont(fontBytes("regular"), { subset: true }), doc.embedFont(fontBytes("bold"), { subset: true })]);
  return { regular, bold };
}

const characterSets = new WeakMap<PDFFont, Set<number>>();

/**
 * `text` as `font` can draw it: a character the font lacks is written without its accents when the
 * letters beneath are in the font (a rare accent), otherwise as "?" (a script the font does not cover,
 * such as Chinese), never as an empty box.
 */
export function drawableText(text: string, font: PDFFont): string {
  let characters = characterSets.get(font);
  if (!characters) {
    characters = new Set(font.getCharacterSet());
    characterSets.set(font, characters);
  }
  const has = characters;
  const drawable = (char: string) => /\s/u.test(char) ? char === " " : has.has(char.codePointAt(0)!);
  let result = "";
  for (const char of text.normalize("NFC")) {
    if (drawable(char)) result += char;
    else if (/\s/u.test(char)) result += " ";
    else {
      const folded = char.normalize("NFD").replace(/\p{M}/gu, "");
      result += folded && [...folded].every(drawable) ? folded : "?";
    }
  }
  return result;
}
