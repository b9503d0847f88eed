import type { AssemblyPage, PageReading, QuarterTurn } from "../page-reading";
import type { SignInSlipSheet } from "../../../identity/sign-in-slips";
import type { PageRect, ScriptToStamp, StampOptions, StampedScripts } from "../stamp";
import type { TickBox } from "../../../../lib/rules/tick-boxes";
import type { AreasReading, PileAreaLayout } from "../../ticks/reading";
import type { ReadAreasInput } from "./read-areas";
import type { TemplateProposal } from "../../template-reading/proposal";
import type { SchemeLine } from "../../mark-scheme/read-scheme";

/** Messages between the app thread (server/exam/intake/imaging/index.ts) and the imaging worker (worker.ts). */

export type ImagingRequest =
  /** `path`: a file the app wrote the pile to (a pile is tens of megabytes: sent over the channel it held the app's thread for a fifth of a second). */
  | { kind: "openPile"; path: string; maxPages?: number; areas?: PileAreaLayout }
  | { kind: "readPage"; pileId: number; pilePage: number }
  | { kind: "closePile"; pileId: number }
  | { kind: "assembleScript"; pages: AssemblyPage[] }
  | { kind: "stamp"; paper: Uint8Array; batchCode: string; scripts: ScriptToStamp[]; keepClear: PageRect[]; options?: StampOptions }
  | { kind: "nameBoxCrop"; onePagePdf: Uint8Array; rotation: QuarterTurn; rect: Omit<PageRect, "page">; cover?: Omit<PageRect, "page"> }
  | { kind: "inspectPaper"; paper: Uint8Array }
  | { kind: "redactScript"; scriptPdf: Uint8Array; covers: PageRect[] }
  | { kind: "redactedPageImage"; onePagePdf: Uint8Array; rotation: QuarterTurn; covers: Omit<PageRect, "page">[] }
  | { kind: "signInSlips"; sheet: SignInSlipSheet }
  | { kind: "findTickBoxes"; paper: Uint8Array; page: number; area: Omit<PageRect, "page"> }
  | ({ kind: "readAreas" } & ReadAreasInput)
  | { kind: "proposeTemplate"; paper: Uint8Array }
  | { kind: "readMarkScheme"; pdf: Uint8Array }
  | { kind: "answerCrop"; onePagePdf: Uint8Array; rotation: QuarterTurn; rect: Omit<PageRect, "page">; covers: Omit<PageRect, "page">[] };

export interface ImagingReplies {
  openPile: { pileId: number; pageCount: number };
  readPage: PageReading;
  closePile: null;
  assembleScript: Uint8Array;
  stamp: StampedScripts;
  nameBoxCrop: Uint8Array | null;
  inspectPaper: { pageCount: number };
  redactScript: Uint8Array;
  redactedPageImage: Uint8Array | null;
  signInSlips: Uint8Array;
  findTickBoxes: TickBox[];
  readAreas: AreasReading;
  proposeTemplate: TemplateProposal;
  readMarkScheme: SchemeLine[];
  answerCrop: Uint8Array | null;
}

export interface RequestEnvelope {
  id: number;
  request: ImagingRequest;
}

export type ReplyEnvelope =
  | { id: number; ok: true; value: unknown }
  /** An AppError keeps its code and message; anything else is reported as a failure of the imaging. */
  | { id: number; ok: false; error: { code: string | null; message: string; param?: string } };
