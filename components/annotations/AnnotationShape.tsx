import type { CSSProperties } from "react";
import { strokePath, strokeWidth } from "./stroke";

/*
 * How an annotation is drawn, in one place for every screen that shows one: the marking screens
 * (components/marking/AnnotationOverlay.tsx) and the student's marked script (components/student/AnnotationLayer.tsx).
 * Shapes are SVG in page percentages, so the page's size on screen does not matter; a text comment and a
 * stamp are HTML labels beside their anchor (they wrap).
 */

/** A shape's geometry as either screen has it (page fractions, 0–1). */
interface DrawnGeometry {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  points?: readonly (readonly number[])[];
}

const percent = (value: number | undefined) => `${Math.max(0, Math.min(1, value ?? 0)) * 100}%`;

/** One shape as SVG (inside an `<svg>` that covers the page). */
export function AnnotationShape({ kind, geometry }: { kind: string; geometry: DrawnGeometry }) {
  switch (kind) {
    case "tick":
    case "cross":
      return (
        <text className={`script-overlay__${kind}`} x={percent(geometry.x)} y={percent(geometry.y)} dominantBaseline="middle" textAnchor="middle">
          {kind === "tick" ? "✓" : "✗"}
        </text>
      );
    case "highlight":
      return <rect className="script-overlay__highlight" x={percent(geometry.x)} y={percent(geometry.y)} width={percent(geometry.width)} height={percent(geometry.height)} />;
    case "pen": {
      const points = (geometry.points ?? []).map(([x = 0, y = 0, pressure = 0.5]) => [x, y, pressure] as [number, number, number]);
      // A nested 0–1 box stretched to the page; the stroke keeps its width (from the pen's pressure) whatever the page's size.
      return (
        <svg x="0" y="0" width="100%" height="100%" viewBox="0 0 1 1" preserveAspectRatio="none" overflow="visible">
          <path className="script-overlay__pen" d={strokePath(points)} vectorEffect="non-scaling-stroke" style={{ strokeWidth: strokeWidth(points) }} />
        </svg>
      );
    }
    default:
      // Text and stamps are drawn as HTML labels beside the shapes (AnnotationNote); an anchor dot marks the spot.
      return <circle className="script-overlay__anchor" cx={percent(geometry.x)} cy={percent(geometry.y)} r="3" />;
  }
}

/** A text comment's or a stamp's words, beside its anchor (HTML, inside the page's overlay). */
export function AnnotationNote({ kind, geometry, text, className, style }: { kind: string; geometry: DrawnGeometry; text: string; className?: string; style?: CSSProperties }) {
  return (
    <span className={`script-overlay__note script-overlay__note--${kind}${className ? ` ${className}` : ""}`} style={{ left: percent(geometry.x), top: percent(geometry.y), ...style }}>
      {text}
    </span>
  );
}
