import type { TemplateProposal } from "../../server/exam/template-reading/proposal";
import { type TruthPaper, iou } from "./exam-papers";

/**
 * How a template proposal (server/exam/template-reading) compares with a generated paper's truth
 * (tests/support/exam-papers.ts): the figures of bench:template and the assertions of
 * tests/template-reading.test.ts. A vector paper is scored on labels, marks and areas; a scanned one on
 * its areas alone (its text is left to the teacher), matched by overlap on the same page.
 */

export const AREA_IOU = 0.9;

export interface PaperScore {
  /** Questions and parts (containers too) proposed with the label and parent printed. */
  labels: { right: number; of: number; wrong: string[] };
  /** Items proposed that the paper does not have. */
  extra: string[];
  /** Parts whose marks the paper prints, proposed with those marks. */
  marks: { right: number; of: number; wrong: string[] };
  /** Parts with an answer area, proposed with an area of IoU ≥ AREA_IOU on the right page. */
  areas: { right: number; of: number; wrong: string[] };
  /** The faults printed on purpose, and those the warnings say. */
  faults: { of: number; said: number; unsaid: string[] };
  /** The proposal's total differs from the truth with no warning at all. */
  silentWrongTotal: boolean;
  nameBox: boolean | null;
}

export function scoreProposal(truth: TruthPaper, proposal: TemplateProposal, { scanned = false } = {}): PaperScore {
  const byLabel = new Map(proposal.questions.map((question) => [question.label, question]));
  const leaves = truth.questions.filter((question) => question.page !== null);
  const score: PaperScore = {
    labels: { right: 0, of: 0, wrong: [] },
    extra: [],
    marks: { right: 0, of: 0, wrong: [] },
    areas: { right: 0, of: 0, wrong: [] },
    faults: { of: truth.faults.length, said: 0, unsaid: [] },
    silentWrongTotal: false,
    nameBox: null,
  };
  if (scanned) {
    for (const leaf of leaves) {
      if (leaf.answer === "open" || !leaf.area) continue;
      score.areas.of++;
      const best = Math.max(0, ...proposal.questions.filter((question) => question.page === leaf.page && question.area).map((question) => iou(question.area!, leaf.area!)));
      if (best >= AREA_IOU) score.areas.right++;
      else score.areas.wrong.push(`${leaf.label} (${leaf.answer}, best IoU ${best.toFixed(2)})`);
    }
    return score;
  }
  for (const question of truth.questions) {
    score.labels.of++;
    const found = byLabel.get(question.label);
    if (found && found.parent_label === question.parent_label) score.labels.right++;
    else score.labels.wrong.push(question.label);
  }
  const truthLabels = new Set(truth.questions.map((question) => question.label));
  score.extra = proposal.questions.filter((question) => !truthLabels.has(question.label)).map((question) => question.label);
  for (const leaf of leaves) {
    const found = byLabel.get(leaf.label);
    if (leaf.marks_printed) {
      score.marks.of++;
      if (found?.max_marks === leaf.max_marks) score.marks.right++;
      else score.marks.wrong.push(`${leaf.label}: ${found?.max_marks ?? "none"} for ${leaf.max_marks}`);
    }
    if (leaf.area) {
      score.areas.of++;
      const overlap = found?.area && found.page === leaf.page ? iou(found.area, leaf.area) : 0;
      if (overlap >= AREA_IOU) score.areas.right++;
      else score.areas.wrong.push(`${leaf.label} (${leaf.answer}, IoU ${overlap.toFixed(2)})`);
    }
  }
  for (const fault of truth.faults) {
    const said =
      fault.kind === "cover-total"
        ? proposal.warnings.some((warning) => warning.includes(`the cover says ${fault.says}`))
        : fault.kind === "question-total"
          ? proposal.warnings.some((warning) => warning.startsWith(`Question ${fault.question}: the parts add up to`))
          : proposal.warnings.some((warning) => warning.startsWith(`Question ${fault.label}: no marks found`));
    if (said) score.faults.said++;
    else score.faults.unsaid.push(JSON.stringify(fault));
  }
  score.silentWrongTotal = proposal.marks_total !== truth.total && proposal.warnings.length === 0;
  if (truth.name_box) score.nameBox = proposal.name_box !== null && proposal.name_box.page === truth.name_box.page && iou(proposal.name_box, truth.name_box) >= AREA_IOU;
  return score;
}
