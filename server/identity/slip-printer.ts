import { AppError } from "../errors";
import type { SignInSlipSheet } from "./sign-in-slips";

/**
 * Who draws the sign-in slips' PDF: a port of identity's, so identity imports nothing of the exam wing.
 * The imaging worker draws them (server/exam/intake/imaging/: renderSignInSlips in its process), and
 * setting the process's imaging sets this port too (server/exam/intake/imaging-port.ts), wherever that
 * is done: server/startup.ts, a benchmark, a test. The slot is on globalThis, as the imaging's is: Next's
 * bundles load their own module copies and find the one the server process set.
 */
export type SignInSlipPrinter = (sheet: SignInSlipSheet) => Promise<Uint8Array>;

const slot = globalThis as typeof globalThis & { __markbookSignInSlipPrinter?: SignInSlipPrinter };

export function setSignInSlipPrinter(print: SignInSlipPrinter): void {
  slot.__markbookSignInSlipPrinter = print;
}

export function signInSlipPrinter(): SignInSlipPrinter {
  const print = slot.__markbookSignInSlipPrinter;
  if (!print) throw new AppError("unavailable", "intake imaging is not configured");
  return print;
}
