import { AppError } from "../../errors";
import { setSignInSlipPrinter } from "../../identity/slip-printer";
import type { IntakeImaging } from "./imaging";

export type { IntakeImaging };

/**
 * The imaging that class-set intake runs on (reading a pile's pages and codes, joining pages into a
 * script's PDF, stamping printed scripts, cropping the name box), set once when the server starts
 * (server/startup.ts: the worker process of server/exam/intake/imaging/). The job, the routes and the
 * procedures take it from here; tests set a stand-in or the real worker.
 *
 * Only a type is imported from the imaging: Next's bundles of the routes never load the worker's code,
 * they find the one the server process set (Next bundles load their own module copies, so the slot is
 * on globalThis, as storage's is).
 */
const slot = globalThis as typeof globalThis & { __markbookIntakeImaging?: IntakeImaging };

/** Sets the process's imaging; it draws identity's sign-in slips too (server/identity/slip-printer.ts). */
export function setIntakeImaging(imaging: IntakeImaging): IntakeImaging {
  slot.__markbookIntakeImaging = imaging;
  setSignInSlipPrinter((sheet) => imaging.signInSlips(sheet));
  return imaging;
}

export function intakeImaging(): IntakeImaging {
  const imaging = slot.__markbookIntakeImaging;
  if (!imaging) throw new AppError("unavailable", "intake imaging is not configured");
  return imaging;
}

/** The process's imaging, or null where none was set (a test that never reads pixels). */
export function configuredIntakeImaging(): IntakeImaging | null {
  return slot.__markbookIntakeImaging ?? null;
}
