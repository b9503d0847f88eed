import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Change, HISTORY_LIMIT, type History, emptyHistory, recordStep, redoStep, undoStep } from "../components/annotations/history";
import { type Shape, type StrokePoint, anchorOf, bodyOf, boundsOf, hitTest, moveGeometry, questionAt, shapeIdsOfQuestion, shapeInWords, shapeProblem } from "../components/annotations/shapes";
import { MAX_STROKE_POINTS, simplifyStroke, strokeWidth, strokesToSave } from "../components/annotations/stroke";
import { annotationBody } from "../lib/rules/annotation";

const SUBMISSION = "6f1c2e0a-3b4d-4c5e-8f90-1a2b3c4d5e6f";
const QUESTION = "0b8f6a52-3c1e-4d2a-9f7b-5e4c3d2b1a09";

const unit = fc.double({ min: 0, max: 1, noNaN: true });
/** Anything a pointer could report, off the page and odd values included. */
const wild = fc.oneof(fc.double({ min: -2, max: 3, noNaN: true }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0));
const drawnPoint = fc.tuple(wild, wild, wild) as fc.Arbitrary<StrokePoint>;
const strokePoint = fc.tuple(unit, unit, unit) as fc.Arbitrary<StrokePoint>;

/** The distance from p to the polyline, y in page-width units. */
function distanceToLine(p: StrokePoint, line: readonly StrokePoint[], aspect: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let index = 0; index < line.length; index++) {
    const a = line[index]!;
    const b = line[Math.min(index + 1, line.length - 1)]!;
    const [ax, ay, bx, by, px, py] = [a[0], a[1] * aspect, b[0], b[1] * aspect, p[0], p[1] * aspect];
    const lengthSquared = (bx - ax) ** 2 + (by - ay) ** 2;
    const t = lengthSquared === 0 ? 0 : Math.min(1, Math.max(0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / lengthSquared));
    best = Math.min(best, Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay))));
  }
  return best;
}

const shape = (overrides: Partial<Shape>): Shape => ({ id: crypto.randomUUID(), submission_id: SUBMISSION, page: 1, kind: "tick", layer: "marking", geometry: { x: 0.5, y: 0.5 }, ...overrides });

const geometryOf = fc.oneof(
  fc.record({ x: unit, y: unit }),
  fc
    .record({ x: fc.double({ min: 0, max: 0.9, noNaN: true }), y: fc.double({ min: 0, max: 0.9, noNaN: true }), w: fc.double({ min: 0.001, max: 1, noNaN: true }), h: fc.double({ min: 0.001, max: 1, noNaN: true }) })
    .map(({ x, y, w, h }) => ({ x, y, width: Math.max(0.001, w * (1 - x)), height: Math.max(0.001, h * (1 - y)) })),
  fc.array(strokePoint, { minLength: 2, maxLength: 40 }).map((points) => ({ points })),
);
const kindFor = (geometry: Shape["geometry"]): Shape["kind"] => ("points" in geometry ? "pen" : "width" in geometry ? "highlight" : "tick");

describe("a pen stroke made into what is saved", () => {
  it("always gives strokes the rules accept, none longer than the bound, joined end to start, from the first point drawn to the last", () => {
    fc.assert(
      fc.property(fc.array(drawnPoint, { minLength: 1, maxLength: 600 }), fc.integer({ min: 2, max: 50 }), (drawn, max) => {
        const strokes = strokesToSave(drawn, { max });
        expect(strokes.length).toBeGreaterThan(0);
        for (const points of strokes) {
          expect(points.length).toBeGreaterThanOrEqual(2);
          expect(points.length).toBeLessThanOrEqual(max);
          expect(annotationBody.safeParse({ submission_id: SUBMISSION, page: 1, kind: "pen", geometry: { points } }).success).toBe(true);
        }
        for (let index = 1; index < strokes.length; index++) expect(strokes[index]![0]).toEqual(strokes[index - 1]!.at(-1));
        const clamp = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);
        const first = drawn[0]!;
        const last = drawn.at(-1)!;
        expect(strokes[0]![0]).toEqual([clamp(first[0]), clamp(first[1]), clamp(first[2])]);
        expect(strokes.at(-1)!.at(-1)).toEqual([clamp(last[0]), clamp(last[1]), clamp(last[2])]);
        // Every point drawn (inside the page) lies on the line saved, within the tolerance.
        const line = strokes.flat();
        for (const [x, y, pressure] of drawn) expect(distanceToLine([clamp(x), clamp(y), clamp(pressure)], line, Math.SQRT2)).toBeLessThanOrEqual(0.001 + 1e-9);
      }),
    );
  });

  it("splits a stroke of more than 4000 points however little it simplifies", () => {
    // A zigzag down the page: almost every point is needed.
    const drawn: StrokePoint[] = Array.from({ length: 9_500 }, (_, index) => [(index % 2) * 0.5, index / 9_500, 0.5]);
    const strokes = strokesToSave(drawn);
    expect(strokes.length).toBe(3);
    expect(strokes.every((points) => points.length <= MAX_STROKE_POINTS)).toBe(true);
    expect(strokes.reduce((sum, points) => sum + points.length, 0)).toBeGreaterThan(2 * MAX_STROKE_POINTS);
  });

  it("keeps every point dropped within the tolerance of the simplified line, and only points that were drawn", () => {
    fc.assert(
      fc.property(fc.array(strokePoint, { minLength: 2, maxLength: 200 }), fc.double({ min: 0.0001, max: 0.05, noNaN: true }), fc.double({ min: 0.5, max: 2, noNaN: true }), (points, tolerance, aspect) => {
        const simple = simplifyStroke(points, tolerance, aspect);
        expect(simple[0]).toEqual(points[0]);
        expect(simple.at(-1)).toEqual(points.at(-1));
        for (const kept of simple) expect(points).toContainEqual(kept);
        for (const point of points) expect(distanceToLine(point, simple, aspect)).toBeLessThanOrEqual(tolerance + 1e-9);
      }),
    );
  });

  it("makes a tap a dot and nothing of no points", () => {
    expect(strokesToSave([[0.2, 0.3, 0.5]])).toEqual([
      [
        [0.2, 0.3, 0.5],
        [0.2, 0.3, 0.5],
      ],
    ]);
    expect(strokesToSave([])).toEqual([]);
  });

  it("draws a harder press wider, within 1 to 4 px", () => {
    fc.assert(
      fc.property(fc.array(strokePoint, { minLength: 1, maxLength: 50 }), (points) => {
        const width = strokeWidth(points);
        expect(width).toBeGreaterThanOrEqual(1);
        expect(width).toBeLessThanOrEqual(4);
      }),
    );
    expect(strokeWidth([[0, 0, 1]])).toBeGreaterThan(strokeWidth([[0, 0, 0.2]]));
  });
});

describe("undo and redo of annotations", () => {
  /** A model: the shapes by id after applying each step's `after`, or after undoing. */
  type Model = Map<string, Shape | null>;
  /** A shape that is not there is absent, whether it never was or was removed. */
  const apply = (model: Model, changes: readonly { id: string; shape: Shape | null }[]) => {
    const next = new Map(model);
    for (const { id, shape: value } of changes) {
      if (value) next.set(id, value);
      else next.delete(id);
    }
    return next;
  };
  const operation = fc.oneof(
    fc.constant<"undo">("undo"),
    fc.constant<"redo">("redo"),
    fc.record({ which: fc.integer({ min: 0, max: 4 }), remove: fc.boolean(), x: unit, y: unit }),
  );

  it("puts the shapes back as they were, step by step, and redoes what was undone until a new change", () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const ids = Array.from({ length: 5 }, () => crypto.randomUUID());
        let history: History = emptyHistory;
        let model: Model = new Map();
        /** The states after each step done, and the states undone (to redo), as the screen should show them. */
        const states: Model[] = [model];
        let redoable: Model[] = [];
        for (const op of operations) {
          if (op === "undo") {
            const undone = undoStep(history);
            if (states.length === 1) {
              expect(undone).toBeNull();
              continue;
            }
            history = undone!.history;
            model = apply(model, undone!.apply);
            redoable.push(states.pop()!);
            expect(model).toEqual(states.at(-1));
          } else if (op === "redo") {
            const redone = redoStep(history);
            if (redoable.length === 0) {
              expect(redone).toBeNull();
              continue;
            }
            history = redone!.history;
            model = apply(model, redone!.apply);
            states.push(redoable.pop()!);
            expect(model).toEqual(states.at(-1));
          } else {
            // An add, a move or a delete of one shape.
            const id = ids[op.which]!;
            const before = model.get(id) ?? null;
            const after = before && op.remove ? null : shape({ id, geometry: { x: op.x, y: op.y } });
            const step: Change[] = [{ id, before, after }];
            history = recordStep(history, step);
            model = apply(model, [{ id, shape: after }]);
            states.push(model);
            redoable = [];
            expect(redoStep(history)).toBeNull();
          }
        }
      }),
    );
  });

  it("undoes a stroke split in several shapes as one step", () => {
    const parts = [shape({ kind: "pen" }), shape({ kind: "pen" })];
    const history = recordStep(emptyHistory, parts.map((part) => ({ id: part.id, before: null, after: part })));
    expect(undoStep(history)!.apply).toEqual(parts.map((part) => ({ id: part.id, shape: null })).reverse());
  });

  it("forgets the oldest steps past its limit, and ignores an empty step", () => {
    let history: History = emptyHistory;
    for (let index = 0; index < HISTORY_LIMIT + 10; index++) history = recordStep(history, [{ id: String(index), before: null, after: shape({}) }]);
    expect(history.done.length).toBe(HISTORY_LIMIT);
    expect(history.done[0]![0]!.id).toBe("10");
    expect(recordStep(history, [])).toBe(history);
  });
});

describe("which shape a pointer is on", () => {
  it("finds a shape at its anchor, and the last drawn of those there", () => {
    fc.assert(
      fc.property(fc.array(geometryOf, { minLength: 1, maxLength: 12 }), fc.nat(), (geometries, pick) => {
        const shapes = geometries.map((geometry) => shape({ kind: kindFor(geometry), geometry }));
        const target = shapes[pick % shapes.length]!;
        const hit = hitTest(shapes, anchorOf(target.geometry), 0.01);
        expect(hit).not.toBeNull();
        // Nothing drawn after the hit is also at the point.
        const later = shapes.slice(shapes.indexOf(hit!) + 1);
        expect(hitTest(later, anchorOf(target.geometry), 0.01)).toBeNull();
        expect(shapes.indexOf(hit!)).toBeGreaterThanOrEqual(shapes.indexOf(target));
      }),
    );
  });

  it("finds nothing farther than the tolerance from every shape", () => {
    fc.assert(
      fc.property(fc.array(geometryOf, { maxLength: 12 }), fc.record({ x: unit, y: unit }), (geometries, point) => {
        const shapes = geometries.map((geometry) => shape({ kind: kindFor(geometry), geometry }));
        const tolerance = 0.02;
        const hit = hitTest(shapes, point, tolerance, 1);
        const near = shapes.some(({ geometry }) => {
          const box = boundsOf(geometry);
          return point.x >= box.x - tolerance && point.x <= box.x + box.width + tolerance && point.y >= box.y - tolerance && point.y <= box.y + box.height + tolerance;
        });
        if (!near) expect(hit).toBeNull();
      }),
    );
  });
});

describe("moving a shape", () => {
  it("keeps it whole inside the page however far it is moved, and the rules accept it", () => {
    fc.assert(
      fc.property(geometryOf, fc.double({ min: -3, max: 3, noNaN: true }), fc.double({ min: -3, max: 3, noNaN: true }), (geometry, dx, dy) => {
        const kind = kindFor(geometry);
        const moved = moveGeometry(geometry, dx, dy);
        const box = boundsOf(moved);
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(1 + 1e-9);
        expect(box.y + box.height).toBeLessThanOrEqual(1 + 1e-9);
        expect(shapeProblem(shape({ kind, geometry: moved }))).toBeNull();
      }),
    );
  });

  it("moves it by the step asked when there is room", () => {
    expect(moveGeometry({ x: 0.5, y: 0.5 }, 0.05, -0.005)).toEqual({ x: 0.55, y: 0.495 });
    expect(moveGeometry({ x: 0.99, y: 0.5 }, 0.05, 0)).toEqual({ x: 1, y: 0.5 });
  });
});

describe("a shape's question and words", () => {
  const areas = [{ question_id: QUESTION, page: 2, kind: "response", x: 0.1, y: 0.2, width: 0.5, height: 0.3 }];

  it("finds the question whose response area holds the point, on the paper's page only", () => {
    expect(questionAt(areas, 2, { x: 0.3, y: 0.3 })).toBe(QUESTION);
    expect(questionAt(areas, 1, { x: 0.3, y: 0.3 })).toBeUndefined();
    expect(questionAt(areas, null, { x: 0.3, y: 0.3 })).toBeUndefined();
    expect(questionAt([{ ...areas[0]!, kind: "context" }], 2, { x: 0.3, y: 0.3 })).toBeUndefined();
  });

  it("names the first marking's shapes of a question for its mark, not the second marker's nor another script's", () => {
    const mine = shape({ question_id: QUESTION });
    const other = shape({ question_id: crypto.randomUUID() });
    const blind = shape({ question_id: QUESTION, layer: "second_marking" });
    const elsewhere = shape({ question_id: QUESTION, submission_id: crypto.randomUUID() });
    expect(shapeIdsOfQuestion([mine, other, blind, elsewhere], SUBMISSION, QUESTION)).toEqual([mine.id]);
  });

  it("says a shape as the student's view does", () => {
    expect(shapeInWords({ kind: "tick", page: 1 }, "3b")).toBe("Tick on question 3b");
    expect(shapeInWords({ kind: "text", page: 2, text: " Show your working " }, undefined)).toBe("Comment on page 2: Show your working");
    expect(shapeInWords({ kind: "pen", page: 2, text: "ignored" }, "1")).toBe("Pen mark on question 1");
  });

  it("sends a body the rules accept for every kind, and says why one is refused", () => {
    expect(annotationBody.safeParse(bodyOf(shape({ kind: "text", text: "Good", question_id: QUESTION }))).success).toBe(true);
    expect(annotationBody.safeParse(bodyOf(shape({ kind: "stamp", text: "Method", rubric_item_id: QUESTION }))).success).toBe(true);
    // A tick's stray text is not sent.
    expect(bodyOf(shape({ kind: "tick", text: "x" }))).not.toHaveProperty("text");
    expect(shapeProblem(shape({ kind: "text", text: "   " }))).toMatch(/needs its words/);
  });
});
