import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { formatMarks } from "./marks";

type Script = inferRouterOutputs<AppRouter>["student"]["scripts"]["get"];
export type ScriptQuestion = Script["questions"][number];
type Annotation = Script["pages"][number]["annotations"][number];

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
          <Shape key={annotation.id} annotation={annotation} />
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
          <span
            key={annotation.id}
            className={`script-overlay__note script-overlay__note--${annotation.kind}`}
            style={{ left: percent(annotation.geometry.x), top: percent(annotation.geometry.y) }}
          >
            {annotation.text}
          </span>
        ))}
    </div>
  );
}

function Shape({ annotation }: { annotation: Annotation }) {
  const { geometry } = annotation;
  switch (annotation.kind) {
    case "tick":
    case "cross":
      return (
        <text className={`script-overlay__${annotation.kind}`} x={percent(geometry.x)} y={percent(geometry.y)} dominantBaseline="middle" textAnchor="middle">
          {annotation.kind === "tick" ? "✓" : "✗"}
        </text>
      );
    case "highlight":
      return <rect className="script-overlay__highlight" x={percent(geometry.x)} y={percent(geometry.y)} width={percent(geometry.width)} height={percent(geometry.height)} />;
    case "pen": {
      const points = (geometry.points ?? []).map(([x, y]) => `${x},${y}`).join(" ");
      // A nested 0–1 box stretched to the page; the stroke keeps its width whatever the page's size.
      return (
        <svg x="0" y="0" width="100%" height="100%" viewBox="0 0 1 1" preserveAspectRatio="none">
          <polyline className="script-overlay__pen" points={points} vectorEffect="non-scaling-stroke" />
        </svg>
      );
    }
    default:
      // Text and stamps are drawn as HTML labels beside the shapes (they wrap); an anchor dot marks the spot.
      return <circle className="script-overlay__anchor" cx={percent(geometry.x)} cy={percent(geometry.y)} r="3" />;
  }
}
