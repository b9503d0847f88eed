import { z } from "zod";

/**
 * Edge primitives for every input schema (REST bodies, query and path parameters, tRPC inputs): each
 * value that passes them can be stored by PostgreSQL, so a whole class of bad input is a 400 naming the
 * field instead of a database error. See docs/decisions.md, "Input is validated at the edge".
 * Free of server code, so the browser's forms check with the same rules; the one rule that answers
 * with the server's error (an id that names no record is 404) is server/http/record-id.ts.
 */

/** PostgreSQL `integer`. */
const PG_INTEGER_MIN = -2_147_483_648;
const PG_INTEGER_MAX = 2_147_483_647;

/** C0 controls other than tab, line feed and carriage return (NUL is reported on its own). */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const CONTROL_CHARACTER = /[\u0001-\u0008\u000b\u000c\u000e-\u001f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What is wrong with `value` as stored text, or null: NUL (PostgreSQL cannot store it, in `text` or in
 * `jsonb`), other C0 controls (invisible, and they break CSV exports and terminals; tab and line breaks
 * stay allowed), and lone surrogates (not Unicode: UTF-8 cannot carry them, they would be replaced
 * silently or refused by `jsonb`).
 */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain NUL characters";
  if (CONTROL_CHARACTER.test(value)) return "must not contain control characters";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode text (it contains a lone surrogate)";
  return null;
}

const storableText = (context: z.core.ParsePayload<string>) => {
  const problem = textProblem(context.value);
  if (problem) context.issues.push({ code: "custom", message: problem, input: context.value });
};

/**
 * Text that can be stored: at most `max` characters (every string has a bound), and none of the
 * characters `textProblem` refuses. Chain `.trim()`, `.min()` and the like as on `z.string()`.
 */
export function text(max: number, required = "required") {
  return z.string({ error: required }).max(max, `must have at most ${max} characters`).check(storableText);
}

/**
 * A whole number that fits PostgreSQL `integer` (or the tighter bounds given). The bounds are checked
 * first so that 2^53 reads "must be at most …" (zod's int() also refuses unsafe integers).
 */
export function integer({ min = PG_INTEGER_MIN, max = PG_INTEGER_MAX }: { min?: number; max?: number } = {}) {
  return z
    .number({ error: "must be a number" })
    .min(min, `must be ${min} or more`)
    .max(max, `must be at most ${max}`)
    .int("must be a whole number");
}

/**
 * A number that a `numeric(precision, scale)` column holds exactly: at most `scale` decimals and less
 * than 10^(precision - scale) in size (numeric(8, 2): -999999.99 to 999999.99). Finite, as every
 * z.number() is.
 */
export function decimal(precision: number, scale: number, { min }: { min?: number } = {}) {
  const step = 10 ** -scale;
  const largest = Number((10 ** (precision - scale) - step).toFixed(scale));
  const smallest = min ?? -largest;
  return z
    .number({ error: "must be a number" })
    .min(smallest, `must be ${smallest} or more`)
    .max(largest, `must be at most ${largest}`)
    .multipleOf(step, `must have at most ${scale} decimals`);
}

/** How deep a JSON value stored in `jsonb` may nest (mark scheme details are a few levels at most). */
const MAX_JSON_DEPTH = 32;

/** The first problem of a JSON value for `jsonb`: text as `textProblem` says (keys too), nesting. */
function jsonProblem(value: unknown, depth = 0): { path: (string | number)[]; message: string } | null {
  if (typeof value === "string") {
    const problem = textProblem(value);
    return problem ? { path: [], message: problem } : null;
  }
  if (value === null || typeof value !== "object") return null;
  if (depth >= MAX_JSON_DEPTH) return { path: [], message: `must not nest more than ${MAX_JSON_DEPTH} levels deep` };
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const keyProblem = typeof key === "string" ? textProblem(key) : null;
    if (keyProblem) return { path: [key], message: `key ${keyProblem}` };
    const inner = jsonProblem(item, depth + 1);
    if (inner) return { path: [key, ...inner.path], message: inner.message };
  }
  return null;
}

const storableJson = (context: z.core.ParsePayload<unknown>) => {
  const problem = jsonProblem(context.value);
  if (problem) context.issues.push({ code: "custom", message: problem.message, input: context.value, path: problem.path });
};

/** Any JSON value that `jsonb` stores: storable text in values and keys, bounded nesting. */
export function jsonValue() {
  return z.json().check(storableJson);
}

/** An object of free-form JSON fields (a mark scheme) with the same rules as `jsonValue`, and a typed shape. */
export function storableJsonObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject(shape).check(storableJson);
}

/** A query parameter given with nothing after it (`?class_id=`) means "no filter", as most APIs read it. */
export const emptyAsAbsent = (value: unknown) => (value === "" ? undefined : value);

const QUERY_TRUE = ["true", "1", "yes"];
/**
 * A boolean query parameter, one rule for every route: true/1/yes or false/0/no as tools send them, or a
 * real boolean (the same schema serves as a tRPC input). An empty value (`?active=`) is absent; anything
 * else is a 400 naming the parameter.
 */
export const queryBoolean = z.preprocess(
  emptyAsAbsent,
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no"]).transform((value) => QUERY_TRUE.includes(value))], {
      error: "must be true or false",
    })
    .optional(),
);
