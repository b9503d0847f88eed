import type { CoverSheet, MarkedScriptDocument } from "./document";

/** Messages between the app (index.ts) and the marked-PDF worker process (worker.ts). */

export type MarkedPdfRequest =
  | { kind: "script"; document: MarkedScriptDocument }
  | { kind: "classFeedback"; sheets: CoverSheet[]; title: string }
  /** One PDF of the class's scripts, a student at a time: open (answers the id), add each, save (answers the PDF and closes). */
  | { kind: "classOpen"; title: string }
  | { kind: "classAdd"; classId: number; document: MarkedScriptDocument }
  | { kind: "classSave"; classId: number }
  | { kind: "classClose"; classId: number };

export interface MarkedPdfRequestEnvelope {
  id: number;
  request: MarkedPdfRequest;
}

export type MarkedPdfReplyEnvelope =
  | { id: number; ok: true; value: Uint8Array | number | null }
  /** An AppError keeps its code and message; anything else is reported as a failure of the worker. */
  | { id: number; ok: false; error: { code: string | null; message: string; param?: string } };
