import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { AnnotationNote, AnnotationShape } from "@/components/annotations/AnnotationShape";
import { formatMarks } from "./marks";

type Script = inferRouterOutputs<AppRouter>["student"]["scripts"]["get"];
export type ScriptQuestion = Script["questions"][number];

const percent = (value: number | undefined) => `${Math.max(0, Math.min(1, value ?? 0)) * 100}%`;

/**
 * The marking of one page over its scan: the annotations as vectors (page-relative 0–1 coordinates) and
 * each question's mark at the top right of its response area. Drawn for the eye only (aria-hidden): the
 * page's list under it (PageInWords) says the same in words.
 */
export function AnnotationLayer({ page, script }: { page: number; script: Script }) {
  const annotations = script.pages.find((entry) => entry.page === page)?.annotations ?? [];
  const areas = script.questions.flatMap((question) => question.areas.filter((area) => area.page === page).map((area) => ({ question, area })));
  // One mark per question on its first area of the page.
  const placed = areas.filter(({ question }, index) => areas.findIndex((other) => other.question.id === question.id) === index);
  return (
    <div className="script-overlay" aria-hidden="true">
      <svg className="script-overlay__shapes" width="100%" height="100%">
        {areas.map(({ question, area }, index) => (
          <rect key={`${question.id}-${index}`} className="script-overlay__area" x={percent(area.x)} y={percent(area.y)} width={percent(area.width)} height={percent(area.height)} />
        ))}
        {annotations.map((annotation) => (
          <AnnotationShape key={annotation.id} kind={annotation.kind} geometry={annotation.geometry} />
        ))}
      </svg>
      {placed.map(({ question, area }) => (
        <span
          key={question.id}
          className={`script-overlay__mark${question.awarded_marks !== null && question.awarded_marks >= question.max_marks ? " script-overlay__mark--full" : ""}`}
          style={{ left: percent(area.x + area.width), top: percent(area.y) }}
        >
          {question.label}: {question.awarded_marks === null ? "–" : formatMarks(question.awarded_marks)}/{formatMarks(question.max_marks)}
        </span>
      ))}
      {annotations
        .filter((annotation) => (annotation.kind === "text" || annotation.kind === "stamp") && annotation.text)
        .map((annotation) => (
          <AnnotationNote key={annotation.id} kind={annotation.kind} geometry={annotation.geometry} text={annotation.text ?? ""} />
        ))}
    </div>
  );
}
