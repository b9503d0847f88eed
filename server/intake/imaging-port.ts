import { AppError } from "../errors";
import type { AssembleScript, ReadPile } from "./page-reading";

/**
 * The imaging that class-set intake runs on (reading a pile's pages and codes, joining pages into a
 * script's PDF), as one pair set once when the app starts. The filing rules take the pair as a parameter;
 * the job and the routes use the one set here.
 */
export interface IntakeImaging {
  readPile: ReadPile;
  assembleScript: AssembleScript;
}

// One pair per process (Next bundles load their own module copies), as with storage.
const slot = globalThis as typeof globalThis & { __markbookIntakeImaging?: IntakeImaging };

export function setIntakeImaging(imaging: IntakeImaging): IntakeImaging {
  slot.__markbookIntakeImaging = imaging;
  return imaging;
}

export function intakeImaging(): IntakeImaging {
  const imaging = slot.__markbookIntakeImaging;
  if (!imaging) throw new AppError("unavailable", "intake imaging is not configured");
  return imaging;
}
