/*
 * Annotations as the marking screen holds them (issue 35, item 1): one shape over one page of the
 * script's scan, in page fractions (0–1), with the pure rules the screen needs: where a shape is
 * anchored, which shape a pointer is on (hit-testing), moving one inside the page, the question it
 * belongs to, and what it says in words. Free of React, so tests/annotation-shapes.test.ts checks
 * them with generated input.
 */

import type { z } from "zod";
import { type AnnotationLayer, annotationBody, annotationInWords, type annotationKinds } from "@/lib/rules/annotation";

type AnnotationKind = (typeof annotationKinds)[number];
export interface Point {
  x: number;
  y: number;
}
export interface Rect extends Point {
  width: number;
  height: number;
}
export type StrokePoint = [number, number, number];
type Geometry = Point | Rect | { points: StrokePoint[] };

/** One annotation on the screen: saved, or a draft the server does not have yet. */
export interface Shape {
  id: string;
  submission_id: string;
  /** The page of the script's scan, from 1 (not the paper's page). */
  page: number;
  kind: AnnotationKind;
  layer: AnnotationLayer;
  geometry: Geometry;
  /** A text comment's words, or a stamp's label. */
  text?: string;
  question_id?: string;
  rubric_item_id?: string;
}

/** A stored annotation as the server returns it (nulls where nothing is said). */
export interface StoredShape {
  id: string;
  submission_id: string;
  page: number;
  kind: AnnotationKind;
  layer: AnnotationLayer;
  geometry: Geometry;
  text: string | null;
  question_id: string | null;
  rubric_item_id: string | null;
}

export const shapeOfStored = (stored: StoredShape): Shape => ({
  id: stored.id,
  submission_id: stored.submission_id,
  page: stored.page,
  kind: stored.kind,
  layer: stored.layer,
  geometry: stored.geometry,
  ...(stored.text !== null ? { text: stored.text } : {}),
  ...(stored.question_id !== null ? { question_id: stored.question_id } : {}),
  ...(stored.rubric_item_id !== null ? { rubric_item_id: stored.rubric_item_id } : {}),
});

const isStroke = (geometry: Geometry): geometry is { points: StrokePoint[] } => "points" in geometry;
export const isRect = (geometry: Geometry): geometry is Rect => "width" in geometry;

/** The body of the shape's save (PUT /api/exam/annotations/{id}). */
export function bodyOf(shape: Shape): z.input<typeof annotationBody> {
  return {
    submission_id: shape.submission_id,
    page: shape.page,
    kind: shape.kind,
    layer: shape.layer,
    geometry: shape.geometry,
    ...(shape.text !== undefined && (shape.kind === "text" || shape.kind === "stamp") ? { text: shape.text } : {}),
    ...(shape.question_id ? { question_id: shape.question_id } : {}),
    ...(shape.rubric_item_id ? { rubric_item_id: shape.rubric_item_id } : {}),
  } as z.input<typeof annotationBody>;
}

/** Why the server would refuse the shape (the shared rules, lib/rules/annotation.ts), or null. */
export function shapeProblem(shape: Shape): string | null {
  const parsed = annotationBody.safeParse(bodyOf(shape));
  if (parsed.success) return null;
  const issue = parsed.error.issues[0]!;
  return issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/**
 * The point a shape is anchored at, as the student's view and the marked PDF read it
 * (server/exam/returns/student-scripts.ts): the point of a tick, cross, comment or stamp, a
 * highlight's middle, a stroke's first point.
 */
export function anchorOf(geometry: Geometry): Point {
  if (isStroke(geometry)) {
    const [x, y] = geometry.points[0] ?? [0, 0];
    return { x, y };
  }
  if (isRect(geometry)) return { x: geometry.x + geometry.width / 2, y: geometry.y + geometry.height / 2 };
  return { x: geometry.x, y: geometry.y };
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** The shape's box in page fractions. */
export function boundsOf(geometry: Geometry): Rect {
  if (isStroke(geometry)) {
    const xs = geometry.points.map(([x]) => x);
    const ys = geometry.points.map(([, y]) => y);
    const left = Math.min(...xs);
    const top = Math.min(...ys);
    return { x: left, y: top, width: Math.max(...xs) - left, height: Math.max(...ys) - top };
  }
  if (isRect(geometry)) return { ...geometry };
  return { x: geometry.x, y: geometry.y, width: 0, height: 0 };
}

/**
 * The geometry moved by (dx, dy) page fractions, kept whole inside the page: a move that would push
 * part of it off the page stops at the edge. Rounded as the rules round it, so what is drawn is what is saved.
 */
export function moveGeometry(geometry: Geometry, dx: number, dy: number): Geometry {
  const box = boundsOf(geometry);
  const mx = clamp(dx, -box.x, 1 - box.x - box.width);
  const my = clamp(dy, -box.y, 1 - box.y - box.height);
  const at = (value: number) => clamp(Math.round(value * 1e5) / 1e5, 0, 1);
  if (isStroke(geometry)) return { points: geometry.points.map(([x, y, pressure]) => [at(x + mx), at(y + my), pressure] as StrokePoint) };
  if (isRect(geometry)) {
    const x = at(geometry.x + mx);
    const y = at(geometry.y + my);
    return { x, y, width: Math.min(geometry.width, 1 - x), height: Math.min(geometry.height, 1 - y) };
  }
  return { x: at(geometry.x + mx), y: at(geometry.y + my) };
}

/** The distance from p to the segment a–b, with y counted in units of the page's width (`aspect` = height ÷ width). */
function distanceToSegment(p: Point, a: Point, b: Point, aspect: number): number {
  const px = p.x;
  const py = p.y * aspect;
  const ax = a.x;
  const ay = a.y * aspect;
  const bx = b.x;
  const by = b.y * aspect;
  const lengthSquared = (bx - ax) ** 2 + (by - ay) ** 2;
  const t = lengthSquared === 0 ? 0 : clamp(((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / lengthSquared, 0, 1);
  return Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)));
}

/**
 * The shape under a point of the page (the last drawn first, as it is drawn on top), or null:
 * within `tolerance` (a fraction of the page's width) of a tick's, a cross's, a comment's or a stamp's
 * anchor or of a stroke's line, or inside a highlight. `aspect` is the page's height ÷ width, so a
 * tolerance is as wide as it is tall on screen.
 */
export function hitTest(shapes: readonly Shape[], point: Point, tolerance: number, aspect = Math.SQRT2): Shape | null {
  for (let index = shapes.length - 1; index >= 0; index--) {
    const shape = shapes[index]!;
    const { geometry } = shape;
    if (isStroke(geometry)) {
      const points = geometry.points.map(([x, y]) => ({ x, y }));
      for (let at = 0; at < points.length; at++) {
        if (distanceToSegment(point, points[at]!, points[Math.min(at + 1, points.length - 1)]!, aspect) <= tolerance) return shape;
      }
    } else if (isRect(geometry)) {
      if (point.x >= geometry.x && point.x <= geometry.x + geometry.width && point.y >= geometry.y && point.y <= geometry.y + geometry.height) return shape;
    } else if (distanceToSegment(point, geometry, geometry, aspect) <= tolerance) {
      return shape;
    }
  }
  return null;
}

/** A response area of the paper, on the paper's page. */
export interface PaperArea extends Rect {
  question_id: string;
  page: number;
  kind?: string;
}

/**
 * The question whose response area holds the point on the paper's page `paperPage`, or undefined.
 * Context areas (a figure, a source) are not a question's answer: only response areas count when a
 * paper has them.
 */
export function questionAt(areas: readonly PaperArea[], paperPage: number | null, point: Point): string | undefined {
  if (paperPage === null) return undefined;
  const inside = areas.filter(
    (area) => area.page === paperPage && (area.kind === undefined || area.kind === "response") && point.x >= area.x && point.x <= area.x + area.width && point.y >= area.y && point.y <= area.y + area.height,
  );
  return inside[0]?.question_id;
}

/**
 * The shapes that justify the mark of `questionId` (a mark entry's annotation_shape_ids): those of the
 * first marking on the script that carry the question's id. The screen gives every shape the question
 * whose response area its anchor lies in, else the question on screen when it was drawn
 * (docs/decisions/marking-quality.md, "Annotation tools on the marking screen").
 */
export const shapeIdsOfQuestion = (shapes: readonly Shape[], submissionId: string, questionId: string): string[] =>
  shapes.filter((shape) => shape.submission_id === submissionId && shape.layer === "marking" && shape.question_id === questionId).map((shape) => shape.id);

/** The shape in words, as the student's view says it (one definition: lib/rules/annotation.ts). */
export const shapeInWords = (shape: Pick<Shape, "kind" | "text" | "page">, questionLabel: string | undefined): string => annotationInWords(shape, questionLabel);
