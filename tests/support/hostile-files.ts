import { Readable } from "node:stream";
import zlib from "node:zlib";
import sharp from "sharp";
import { seededRandom } from "./seeded-random";

/**
 * A corpus of hostile PDFs and images, generated in code (nothing large is committed): each file is a
 * few kilobytes that claims, or unfolds into, far more than a school's scan ever holds. Add a file by
 * adding an entry to `hostileFiles` with the sentence the teacher must read when it is refused (null
 * when the file is accepted and its harm must simply be bounded). tests/hostile-files.test.ts sends
 * every entry through the real upload paths.
 *
 * PDFs are written by hand (`rawPdf`) rather than with pdf-lib, because pdf-lib refuses to write most
 * of them (loops, lying sizes).
 */

export interface HostileFile {
  name: string;
  bytes: Uint8Array;
  /** What it attacks, for the test's names. */
  threat: string;
}

/** A PDF from its numbered objects (object i + 1 is `objects[i]`; `null` writes none), with a correct cross-reference table. */
export function rawPdf(objects: Array<string | Uint8Array | null>, { root = 1 }: { root?: number } = {}): Uint8Array {
  const parts: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    if (object === null) {
      offsets.push(-1);
      return;
    }
    offsets.push(length);
    const body = typeof object === "string" ? Buffer.from(object, "latin1") : Buffer.from(object);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), body, Buffer.from("\nendobj\n")]);
    parts.push(part);
    length += part.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, "0000000000 65535 f \n", ...offsets.map((offset) => (offset < 0 ? "0000000000 65535 f \n" : `${String(offset).padStart(10, "0")} 00000 n \n`))].join("");
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(parts));
}

/** A stream object: `dictionary` without its << >>, the data as it is stored (already encoded). */
function streamObject(dictionary: string, data: Uint8Array | string): Uint8Array {
  const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : Buffer.from(data);
  return Buffer.concat([Buffer.from(`<< ${dictionary} /Length ${bytes.length} >>\nstream\n`), bytes, Buffer.from("\nendstream")]);
}

/** One page of `width` × `height` points drawing `content`, with `resources` (a dictionary's inside). */
function onePage({ width, height, content, resources = "", extra = [] }: { width: number; height: number; content: string; resources?: string; extra?: Array<string | Uint8Array> }) {
  return rawPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << ${resources} >> /Contents 4 0 R >>`,
    streamObject("", content),
    ...extra,
  ]);
}

/** A grey JPEG of `width` × `height` whose frame header is then rewritten to claim `claimed` pixels. */
async function lyingJpeg(claimed: { width: number; height: number }, real = { width: 16, height: 16 }): Promise<Uint8Array> {
  const jpeg = await sharp({ create: { width: real.width, height: real.height, channels: 3, background: { r: 200, g: 200, b: 200 } } })
    .greyscale()
    .jpeg({ quality: 50 })
    .toBuffer();
  // SOF0..SOF2: FF C0/C1/C2, length (2), precision (1), height (2), width (2).
  for (let at = 2; at < jpeg.length - 9; ) {
    if (jpeg[at] !== 0xff) throw new Error("not a marker");
    const marker = jpeg[at + 1]!;
    const size = jpeg.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      jpeg.writeUInt16BE(claimed.height, at + 5);
      jpeg.writeUInt16BE(claimed.width, at + 7);
      return new Uint8Array(jpeg);
    }
    at += 2 + size;
  }
  throw new Error("no frame header");
}

/** A scanned A4 page (one JPEG over the whole page) whose image dictionary says `dictionary` and whose JPEG says what it says. */
function scannedPage(jpeg: Uint8Array, dictionary: { width: number; height: number }, page = { width: 595, height: 842 }) {
  return onePage({
    ...page,
    content: `q ${page.width} 0 0 ${page.height} 0 0 cm /Im0 Do Q`,
    resources: "/XObject << /Im0 5 0 R >>",
    extra: [streamObject(`/Type /XObject /Subtype /Image /Width ${dictionary.width} /Height ${dictionary.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode`, jpeg)],
  });
}

/**
 * `pages` blank pages in a few hundred bytes: a page tree whose nodes list the same child many times
 * (a tree of 10 × 10 × … kids, all one object), as a PDF bomb does.
 */
function manyTinyPages(fanOut: number[]): Uint8Array {
  // Object 1 the catalog, 2 the root node, 3.. inner nodes, last the one page.
  const levels = fanOut.length;
  const pageObject = 2 + levels;
  const objects: string[] = ["<< /Type /Catalog /Pages 2 0 R >>"];
  let below = fanOut.reduce((product, kids) => product * kids, 1);
  fanOut.forEach((kids, level) => {
    const child = level === levels - 1 ? pageObject : 3 + level;
    const parent = level === 0 ? "" : `/Parent ${2 + level - 1} 0 R `;
    objects.push(`<< /Type /Pages ${parent}/Kids [${Array(kids).fill(`${child} 0 R`).join(" ")}] /Count ${below} >>`);
    below /= kids;
  });
  objects.push(`<< /Type /Page /Parent ${pageObject - 1} 0 R /MediaBox [0 0 595 842] /Resources << >> >>`);
  return rawPdf(objects);
}

/** Seeded pseudo-random bytes, so a failing file can be made again. */
function seededBytes(seed: number, length: number): Uint8Array {
  const random = seededRandom(seed);
  return Uint8Array.from({ length }, () => (random() * 4294967296) & 0xff);
}

/** A real page to prove a file's good pages still read: a vector page with a little text. */
export const plainPage = () => onePage({ width: 595, height: 842, content: "BT /F1 24 Tf 72 720 Td (Page) Tj ET", resources: "/Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >>" });

export async function hostileFiles(): Promise<HostileFile[]> {
  return [
    {
      name: "oversized-page.pdf",
      threat: "a 7200 × 7200 pt page (2.5 m square) with a drawing on it, rendered at 200 dpi: 20,000 × 20,000 pixels",
      bytes: onePage({ width: 7200, height: 7200, content: "0 0 0 rg 100 100 7000 7000 re f" }),
    },
    {
      name: "lying-jpeg-header.pdf",
      threat: "a 16 × 16 JPEG whose frame header claims 16000 × 16000 pixels, under an image dictionary that claims A4 at 200 dpi",
      bytes: scannedPage(await lyingJpeg({ width: 16000, height: 16000 }), { width: 1654, height: 2339 }),
    },
    {
      name: "declared-huge-jpeg.pdf",
      threat: "a scanned page whose image says 16000 × 22600 pixels everywhere (dictionary and JPEG)",
      bytes: scannedPage(await lyingJpeg({ width: 16000, height: 22600 }), { width: 16000, height: 22600 }),
    },
    {
      name: "huge-embedded-image.pdf",
      threat: "a page with a 20000 × 20000 grey image of 400 MB that deflates to a few hundred kilobytes",
      bytes: onePage({
        width: 595,
        height: 842,
        content: "BT /F1 12 Tf 72 800 Td (Scan) Tj ET q 595 0 0 842 0 0 cm /Im0 Do Q",
        resources: "/Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> /XObject << /Im0 5 0 R >>",
        extra: [streamObject("/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", await deflateRepeated(0xff, 20000 * 20000))],
      }),
    },
    {
      name: "content-stream-bomb.pdf",
      threat: "a page whose drawing instructions deflate from a few hundred kilobytes to 300 MB",
      bytes: await contentBomb(300 * 1024 * 1024),
    },
    {
      name: "page-tree-loop.pdf",
      threat: "a page tree whose node lists itself among its kids",
      bytes: rawPdf([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << >> >>",
      ]),
    },
    {
      name: "page-tree-cycle.pdf",
      threat: "two page-tree nodes that list each other",
      bytes: rawPdf([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
      ]),
    },
    {
      name: "junk-after-header.pdf",
      threat: "the PDF signature followed by 8 KB of noise",
      bytes: new Uint8Array(Buffer.concat([Buffer.from("%PDF-1.7\n"), seededBytes(32, 8 * 1024)])),
    },
    {
      name: "truncated.pdf",
      threat: "a PDF cut short in its first object, without its cross-reference table",
      bytes: plainPage().slice(0, 60),
    },
    {
      name: "many-tiny-pages.pdf",
      threat: "5,000 blank pages in a few hundred bytes (one page listed 10 × 10 × 50 times)",
      bytes: manyTinyPages([10, 10, 50]),
    },
  ];
}

/** One page whose content stream is `inflated` bytes of spaces, deflated (about a thousandth of that). */
async function contentBomb(inflated: number): Promise<Uint8Array> {
  return rawPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << >> /Contents 4 0 R >>",
    streamObject("/Filter /FlateDecode", await deflateRepeated(0x20, inflated)),
  ]);
}

/** `length` bytes of `byte`, deflated a megabyte at a time (the whole is never in memory). */
async function deflateRepeated(byte: number, length: number): Promise<Uint8Array> {
  const block = Buffer.alloc(1024 * 1024, byte);
  async function* source() {
    for (let left = length; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(source()).pipe(zlib.createDeflate({ level: 9 }))) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}
