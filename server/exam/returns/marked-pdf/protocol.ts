import type { CoverSheet, MarkedScriptDocument } from "./document";

/** Messages between the app (index.ts) and the marked-PDF worker process (worker.ts). */

export type MarkedPdfRequest = { kind: "script"; document: MarkedScriptDocument } | { kind: "classFeedback"; sheets: CoverSheet[]; title: string };

export interface MarkedPdfRequestEnvelope {
  id: number;
  request: MarkedPdfRequest;
}

export type MarkedPdfReplyEnvelope =
  | { id: number; ok: true; value: Uint8Array }
  /** An AppError keeps its code and message; anything else is reported as a failure of the worker. */
  | { id: number; ok: false; error: { code: string | null; message: string; param?: string } };
