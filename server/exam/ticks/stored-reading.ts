import crypto from "node:crypto";
import { z } from "zod";
import type { AreasReading, TickAreaToRead, WrittenAreaToRead } from "./reading";

/**
 * A page's areas as the pile pass stored them (exam_scan_pages.area_reading and area_reading_page,
 * written by server/exam/intake/pile-reader.ts), read back for the job that keeps readings and marks:
 * the stored reading when it is there, of the page expected and of the areas expected, or null (then
 * the page is read on its own, readAreas). What the column holds is checked as any stored JSON is.
 * The pass keeps with it the key of the areas it read against (pageAreasKey): an area moved or resized,
 * or a box changed, in the template since gives another key, and the page is read again.
 */

const boxReading = z.object({ label: z.string(), state: z.enum(["ticked", "empty", "uncertain"]), ink: z.number(), filled: z.boolean() });
const areasReading = z.object({
  alignment: z.object({ by: z.enum(["code", "content", "none"]), turn: z.union([z.literal(0), z.literal(180)]) }),
  tickAreas: z.array(
    z.object({
      id: z.string(),
      answer: z.array(z.string()).nullable(),
      boxes: z.array(boxReading),
      reason: z.literal("not-aligned").optional(),
    }),
  ),
  writtenAreas: z.array(
    z.object({
      id: z.string(),
      blank: z.enum(["blank", "written", "uncertain"]),
      ink: z.number(),
      reason: z.literal("not-aligned").optional(),
    }),
  ),
  layout_key: z.string().max(128).optional(),
}) satisfies z.ZodType<AreasReading & { layout_key?: string }>;

/** A template page's areas as they were read against. */
export interface PageAreas {
  tickAreas: readonly Pick<TickAreaToRead, "id" | "boxes">[];
  writtenAreas: readonly WrittenAreaToRead[];
}

/** A short key of a page's areas, their ids and places (order does not matter): what a stored reading was read against. */
export function pageAreasKey({ tickAreas, writtenAreas }: PageAreas): string {
  const byId = <T extends { id: string }>(areas: readonly T[]) => [...areas].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const canonical = [
    byId(tickAreas).map(({ id, boxes }) => [id, boxes.map(({ label, x, y, width, height, shape }) => [label, x, y, width, height, shape])]),
    byId(writtenAreas).map(({ id, x, y, width, height }) => [id, x, y, width, height]),
  ];
  return crypto.createHash("sha256").update(JSON.stringify(canonical)).digest("base64url");
}

export interface StoredAreaReadingRow {
  area_reading: unknown;
  area_reading_page: number | null;
}

export interface ExpectedAreas {
  /** The template page the scan is filed as: a reading made against another page is not used. */
  page?: number;
  /** The template's areas now: a reading that lacks any of them (the template changed since) is not used. */
  tickAreaIds?: string[];
  writtenAreaIds?: string[];
  /** The key of the page's areas now (pageAreasKey): a reading made against other places, or kept without a key, is not used. */
  layoutKey?: string;
}

/** The stored reading of a scan page, or null when there is none that fits (read the page again with readAreas). */
export function storedAreaReading(row: StoredAreaReadingRow, expected: ExpectedAreas = {}): AreasReading | null {
  if (row.area_reading === null || row.area_reading === undefined || row.area_reading_page === null) return null;
  if (expected.page !== undefined && expected.page !== row.area_reading_page) return null;
  const parsed = areasReading.safeParse(row.area_reading);
  if (!parsed.success) return null;
  const reading = parsed.data;
  const has = (ids: string[] | undefined, read: { id: string }[]) => !ids || ids.every((id) => read.some((area) => area.id === id));
  if (!has(expected.tickAreaIds, reading.tickAreas) || !has(expected.writtenAreaIds, reading.writtenAreas)) return null;
  if (expected.layoutKey !== undefined && reading.layout_key !== expected.layoutKey) return null;
  const { layout_key: _key, ...read } = reading;
  return read;
}
