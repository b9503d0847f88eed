import type { z } from "zod";

/**
 * A zod issue as one sentence a person can act on, naming the field in words: `Title: must not be
 * blank`, `Question 3, max marks: must be at most 100`, `Student: must be a student's user id`. The
 * one formatter of input errors, for the REST `detail` and tRPC messages alike (server/errors.ts).
 */

/** Field names said better than their words alone. */
const fieldWords: Record<string, string> = {
  awarded_marks: "mark",
  max_marks: "maximum marks",
  spec_ref: "specification point",
  exam_id: "catalogue paper",
  exam_code: "paper code",
  source_file_id: "paper file",
  db_name: "database name",
  neo4j_db_name: "graph database name",
  neo4j_node_id: "graph node",
  mark_scheme_detail: "mark scheme detail",
  annotation_shape_ids: "annotations",
  response_areas: "response areas",
};

/** The words of one key: `class_id` is "class", `page_count` is "page count". */
function wordsOf(key: string): string {
  return fieldWords[key] ?? key.replace(/_ids?$/, (suffix) => (suffix === "_ids" ? "s" : "")).replace(/[_-]+/g, " ").trim();
}

/** "questions" at index 2 reads "question 3". */
function singular(words: string): string {
  if (words.endsWith("ies")) return `${words.slice(0, -3)}y`;
  return words.endsWith("s") ? words.slice(0, -1) : words;
}

/**
 * The field a path names, in words, or "" for the whole input. A leading `body` (the tRPC input that
 * wraps a REST body) says nothing to a person and is left out.
 */
function fieldLabel(path: readonly PropertyKey[]): string {
  const keys = path[0] === "body" ? path.slice(1) : path;
  const parts: string[] = [];
  for (const key of keys) {
    if (typeof key === "number") parts.push(`${singular(parts.pop() ?? "item")} ${key + 1}`);
    else parts.push(wordsOf(String(key)));
  }
  const label = parts.filter(Boolean).join(", ");
  return label.charAt(0).toUpperCase() + label.slice(1);
}

const typeWords: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a set of fields",
  date: "a date",
};

/** What went wrong, without the field: the schema's own words, or plain ones for zod's defaults. */
function problemOf(issue: z.core.$ZodIssue, rawKey: string | undefined): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.path.length === 0) return `the request must be ${issue.expected === "object" ? "a JSON object" : (typeWords[issue.expected] ?? issue.expected)}`;
      // zod leaves the input out of its issues; its default message says what it received.
      if (/received undefined$/.test(issue.message)) return "required";
      if (isDefaultMessage(issue.message)) return `must be ${typeWords[issue.expected] ?? issue.expected}`;
      break;
    case "invalid_value":
      if (isDefaultMessage(issue.message)) return `must be one of: ${issue.values.map(String).join(", ")}`;
      break;
    case "unrecognized_keys":
      return `unknown field${issue.keys.length === 1 ? "" : "s"}: ${issue.keys.join(", ")}`;
    case "invalid_format":
      if (isDefaultMessage(issue.message)) return issue.format === "uuid" ? "must be an id" : `must be a valid ${issue.format}`;
      break;
    case "too_big":
    case "too_small":
      if (isDefaultMessage(issue.message)) return sizeProblem(issue);
      break;
  }
  // Older messages repeat the key ("template_id must be a template id", "mark_scheme.type is required"):
  // the label says it already.
  const lead = /^([a-z_][\w.]*) (?=(is|must) )/.exec(issue.message)?.[1];
  const repeated = lead !== undefined && lead.split(".").at(-1) === rawKey;
  const message = repeated ? issue.message.slice(lead.length + 1).replace(/^is required$/, "required") : issue.message;
  // Other field names a message mentions ("must be after start_time") in words too.
  return message.replace(/^[A-Z](?=[a-z])/, (first) => first.toLowerCase()).replace(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, wordsOf);
}

function sizeProblem(issue: z.core.$ZodIssueTooBig | z.core.$ZodIssueTooSmall): string {
  const bound = issue.code === "too_big" ? issue.maximum : issue.minimum;
  const most = issue.code === "too_big";
  switch (issue.origin) {
    case "string":
      return most ? `must have at most ${bound} characters` : Number(bound) === 1 ? "must not be blank" : `must have at least ${bound} characters`;
    case "array":
    case "set":
      return most ? `must have at most ${bound} items` : `must have at least ${bound} item${Number(bound) === 1 ? "" : "s"}`;
    default:
      return most ? `must be at most ${bound}` : `must be ${bound} or more`;
  }
}

/** zod's built-in messages start so ("Invalid input: …", "Too big: …"); the schemas' own never do. */
function isDefaultMessage(message: string): boolean {
  return /^(Invalid|Too (big|small))\b/.test(message);
}

/** The sentence of one issue: `Label: problem`, or the problem alone for the whole input. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  const label = fieldLabel(issue.path);
  const rawKey = issue.path.filter((key): key is string => typeof key === "string").at(-1);
  const problem = problemOf(issue, rawKey);
  return label ? `${label}: ${problem}` : problem.charAt(0).toUpperCase() + problem.slice(1);
}
