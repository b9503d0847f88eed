import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../../db/client";
import { examBatches, examScanPages, examScanPiles, examSubmissions, examTemplates } from "../../db/schema";
import { notFound } from "../../errors";
import { type NamesShown, batchNames } from "../anonymity";
import { pileName } from "./filing";
import { batchCodeOf, printedFor, visibleBatchTitles } from "./other-batch";
import { pileStatusValues } from "./piles";

export const intakeStatusOutput = z.object({
  /** Whether the batch's scripts have been printed with codes (its piles are then read by code). */
  printed: z.boolean(),
  piles: z.array(
    z.object({
      id: z.uuid(),
      name: z.string(),
      status: z.enum(pileStatusValues),
      page_count: z.number().int().nullable(),
      pages_read: z.number().int(),
      /** Why the pile could not be read, for its teacher; null unless failed. */
      failure: z.string().nullable(),
      created_at: z.date(),
      /** Its pages filed (to students or to scripts to identify), set aside as scanned twice, and refused. */
      filed: z.number().int(),
      duplicates: z.number().int(),
      refused: z.number().int(),
      /** Why its refused pages were refused, one entry per reason with its count, in pile order. */
      refusals: z.array(z.object({ reason: z.string(), pages: z.number().int() })),
      /** Once done, what became of its pages in one sentence ("0 of 80 pages filed: all 80 were printed for another batch, “Year 10 Mock”"); null before. */
      headline: z.string().nullable(),
    }),
  ),
  counts: z.object({
    pages_uploaded: z.number().int().describe("Pages of the piles opened so far"),
    pages_read: z.number().int(),
    filed_to_students: z.number().int(),
    in_scripts_to_identify: z.number().int(),
    duplicates: z.number().int(),
    refused: z.number().int(),
  }),
  /** Submissions without a student made of pile pages: a spare copy, or pages whose code could not be read. */
  scripts_to_identify: z.array(z.object({ submission_id: z.uuid(), page_count: z.number().int(), first_page_id: z.uuid() })),
  /** Submissions of pile pages with a gap: the positions (1 to the template's page count) no page fills. */
  missing_pages: z.array(
    z.object({
      submission_id: z.uuid(),
      /** Null for a script without a student, and in an anonymous batch (script_number names it there). */
      student_name: z.string().nullable(),
      script_number: z.number().int(),
      missing_positions: z.array(z.number().int()),
    }),
  ),
  /** Pages set aside, in pile order. */
  set_aside: z.array(
    z.object({ page_id: z.uuid(), placement: z.enum(["duplicate", "refused"]), pile_name: z.string(), pile_page: z.number().int(), note: z.string().nullable() }),
  ),
});

/**
 * Where a batch's intake stands: its piles, how many pages went where, the scripts still to identify,
 * the students with missing pages, and the pages set aside. The school's staff read it, as they read
 * the batch (404 otherwise, row-level security decides).
 */
export async function intakeStatus(tx: Tx, batchId: string): Promise<z.output<typeof intakeStatusOutput>> {
  const [batch] = await tx
    .select({ id: examBatches.id, page_count: examTemplates.page_count, print_code: examBatches.print_code, anonymous: examBatches.anonymous })
    .from(examBatches)
    .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
    .where(eq(examBatches.id, batchId));
  if (!batch) throw notFound("Batch");

  const piles = await tx.select().from(examScanPiles).where(eq(examScanPiles.batch_id, batchId)).orderBy(asc(examScanPiles.created_at), asc(examScanPiles.id));
  const pages = await tx
    .select({ page: examScanPages, student_id: examSubmissions.student_id, student_name: examSubmissions.student_name, script_number: examSubmissions.script_number })
    .from(examScanPages)
    .leftJoin(examSubmissions, eq(examSubmissions.id, examScanPages.submission_id))
    .where(eq(examScanPages.batch_id, batchId))
    .orderBy(asc(examScanPages.pile_id), asc(examScanPages.pile_page));
  const pileById = new Map(piles.map((pile) => [pile.id, pile]));

  const names = batchNames(batch);
  const refusal = await refusalReasons(tx, batch.print_code, pages.map(({ page }) => page));
  const scripts = new Map<string, { studentId: string | null; studentName: string | null; scriptNumber: number; pages: { id: string; position: number }[] }>();
  for (const { page, student_id, student_name, script_number } of pages) {
    if (page.placement !== "filed") continue;
    const script = scripts.get(page.submission_id!) ?? { studentId: student_id, studentName: shownName(student_name, names), scriptNumber: script_number!, pages: [] };
    script.pages.push({ id: page.id, position: page.page_number! });
    scripts.set(page.submission_id!, script);
  }
  const filedTo = (withStudent: boolean) => [...scripts.values()].filter((script) => (script.studentId !== null) === withStudent).reduce((sum, script) => sum + script.pages.length, 0);
  const count = (placement: string) => pages.filter(({ page }) => page.placement === placement).length;

  const scriptsToIdentify = [...scripts].flatMap(([submissionId, script]) => {
    if (script.studentId !== null) return [];
    const first = script.pages.reduce((low, page) => (page.position < low.position ? page : low));
    return [{ submission_id: submissionId, page_count: script.pages.length, first_page_id: first.id }];
  });
  const missingPages = [...scripts].flatMap(([submissionId, script]) => {
    const held = new Set(script.pages.map((page) => page.position));
    const last = Math.max(batch.page_count ?? 0, ...held);
    const missing = Array.from({ length: last }, (_, index) => index + 1).filter((position) => !held.has(position));
    return missing.length ? [{ submission_id: submissionId, student_name: script.studentName, script_number: script.scriptNumber, missing_positions: missing }] : [];
  });

  return {
    printed: batch.print_code !== null,
    piles: piles.map((pile) => {
      const ofPile = pages.filter(({ page }) => page.pile_id === pile.id).map(({ page }) => page);
      const filed = ofPile.filter((page) => page.placement === "filed").length;
      const duplicates = ofPile.filter((page) => page.placement === "duplicate").length;
      const refusals = new Map<string, { reason: RefusalReason; pages: number }>();
      for (const page of ofPile) {
        if (page.placement !== "refused") continue;
        const reason = refusal(page);
        const entry = refusals.get(reason.sentence) ?? refusals.set(reason.sentence, { reason, pages: 0 }).get(reason.sentence)!;
        entry.pages++;
      }
      return {
        id: pile.id,
        name: pileName(pile),
        status: pile.status,
        page_count: pile.page_count,
        pages_read: pile.pages_read,
        failure: pile.failure,
        created_at: pile.created_at,
        filed,
        duplicates,
        refused: ofPile.filter((page) => page.placement === "refused").length,
        refusals: [...refusals.values()].map(({ reason, pages }) => ({ reason: reason.sentence, pages })),
        headline: pile.status === "done" ? pileHeadline(pile.page_count ?? ofPile.length, filed, duplicates, [...refusals.values()]) : null,
      };
    }),
    counts: {
      pages_uploaded: piles.reduce((sum, pile) => sum + (pile.page_count ?? 0), 0),
      pages_read: piles.reduce((sum, pile) => sum + pile.pages_read, 0),
      filed_to_students: filedTo(true),
      in_scripts_to_identify: filedTo(false),
      duplicates: count("duplicate"),
      refused: count("refused"),
    },
    scripts_to_identify: scriptsToIdentify,
    missing_pages: missingPages,
    set_aside: pages.flatMap(({ page }) =>
      page.placement === "duplicate" || page.placement === "refused"
        ? [{ page_id: page.id, placement: page.placement, pile_name: pileName(pileById.get(page.pile_id)!), pile_page: page.pile_page, note: refusal.note(page) }]
        : [],
    ),
  };
}

const scanPageOutput = z.object({
  id: z.uuid(),
  pile_id: z.uuid(),
  pile_name: z.string(),
  pile_page: z.number().int(),
  placement: z.enum(["reading", "filed", "duplicate", "refused"]),
  submission_id: z.uuid().nullable(),
  /** Null for a page not filed to a student, and in an anonymous batch. */
  student_name: z.string().nullable(),
  page_number: z.number().int().nullable(),
  rotation: z.number().int(),
  /** From a valid code of this batch: the printed script and page. */
  script_number: z.number().int().nullable(),
  printed_page: z.number().int().nullable(),
  duplicate_of: z.uuid().nullable(),
  note: z.string().nullable(),
});
export const scanPageListOutput = z.object({ pages: z.array(scanPageOutput) });

/** Every scanned page of a batch, piles in upload order and pages in pile order: where each went. */
export async function listScanPages(tx: Tx, batchId: string): Promise<z.output<typeof scanPageListOutput>> {
  const [batch] = await tx.select({ id: examBatches.id, anonymous: examBatches.anonymous, print_code: examBatches.print_code }).from(examBatches).where(eq(examBatches.id, batchId));
  if (!batch) throw notFound("Batch");
  const names = batchNames(batch);
  const rows = await tx
    .select({ page: examScanPages, pile: examScanPiles, student_name: examSubmissions.student_name })
    .from(examScanPages)
    .innerJoin(examScanPiles, eq(examScanPiles.id, examScanPages.pile_id))
    .leftJoin(examSubmissions, eq(examSubmissions.id, examScanPages.submission_id))
    .where(eq(examScanPages.batch_id, batchId))
    .orderBy(asc(examScanPiles.created_at), asc(examScanPiles.id), asc(examScanPages.pile_page));
  const refusal = await refusalReasons(tx, batch.print_code, rows.map(({ page }) => page));
  return {
    pages: rows.map(({ page, pile, student_name }) => ({
      id: page.id,
      pile_id: pile.id,
      pile_name: pileName(pile),
      pile_page: page.pile_page,
      placement: page.placement,
      submission_id: page.submission_id,
      student_name: shownName(student_name, names),
      page_number: page.page_number,
      rotation: page.rotation,
      script_number: page.script_number,
      printed_page: page.printed_page,
      duplicate_of: page.duplicate_of,
      note: refusal.note(page),
    })),
  };
}

/** A student's name where the batch shows names; null in an anonymous batch. */
function shownName(name: string | null, names: NamesShown): string | null {
  return names === "shown" ? name : null;
}

type ScanPageRow = typeof examScanPages.$inferSelect;

interface RefusalReason {
  /** For the list of reasons: "Printed for another batch, “Year 10 Mock”". */
  sentence: string;
  /** Printed for another batch (or school): the words that finish "all 80 were …". */
  foreign: string | null;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const NOT_FILED = ": not filed";

/**
 * Why each refused page was refused, read as the caller: a page printed for another batch names that
 * batch when the caller may see it (server/exam/intake/other-batch.ts), from the code kept on the page (the
 * note written at filing time, as the service, names no batch); any other refusal is its filing note.
 */
async function refusalReasons(tx: Tx, printCode: string | null, pages: ScanPageRow[]) {
  const foreignCode = (page: ScanPageRow) => {
    const code = page.placement === "refused" ? batchCodeOf(page.code) : null;
    return code !== null && code !== printCode ? code : null;
  };
  const titles = await visibleBatchTitles(tx, pages.flatMap((page) => foreignCode(page) ?? []));
  const reason = (page: ScanPageRow): RefusalReason => {
    const code = foreignCode(page);
    if (code !== null) {
      const words = printedFor(titles.get(code));
      return { sentence: capitalised(words), foreign: words };
    }
    const note = page.note ?? "Refused";
    return { sentence: note.endsWith(NOT_FILED) ? note.slice(0, -NOT_FILED.length) : note, foreign: null };
  };
  return Object.assign(reason, {
    /** The page's note, naming the other batch for a page printed for one. */
    note: (page: ScanPageRow) => (foreignCode(page) !== null ? `${reason(page).sentence}${NOT_FILED}` : page.note),
  });
}

const pagesWord = (count: number) => (count === 1 ? "page" : "pages");

/**
 * A done pile in one sentence: "78 of 80 pages filed; 1 refused, 1 scanned twice", and when every page
 * was printed for another batch, which: "0 of 80 pages filed: all 80 were printed for another batch, “Year 10 Mock”".
 */
function pileHeadline(total: number, filed: number, duplicates: number, refusals: { reason: RefusalReason; pages: number }[]): string {
  const refused = refusals.reduce((sum, entry) => sum + entry.pages, 0);
  const head = `${filed} of ${total} ${pagesWord(total)} filed`;
  if (total > 0 && refused === total && refusals.every((entry) => entry.reason.foreign !== null)) {
    const where = refusals.length === 1 ? refusals[0]!.reason.foreign! : "printed for other batches";
    return `${head}: ${total === 1 ? "it was" : `all ${total} were`} ${where}`;
  }
  const rest = [refused > 0 ? `${refused} refused` : null, duplicates > 0 ? `${duplicates} scanned twice` : null].filter((part) => part !== null);
  return rest.length > 0 ? `${head}; ${rest.join(", ")}` : head;
}
