import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toAppError } from "../server/errors";
import { text } from "../lib/rules/input-rules";

/** The message a person reads for the first issue of `schema` on `input`. */
function messageFor(schema: z.ZodType, input: unknown): string {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a refusal");
  return toAppError(result.error).message;
}

describe("zod issues worded for people", () => {
  it("names the field in words, never as a path, and keeps the schema's own words", () => {
    const schema = z.object({
      title: text(300).trim().min(1, "must not be blank"),
      template_id: z.uuid("template_id must be a template id"),
      body: z.object({ questions: z.array(z.object({ max_marks: z.number().max(100, "must be at most 100") })) }),
    });
    const valid = { title: "Mock", template_id: "6f1c2a4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f", body: { questions: [{ max_marks: 1 }] } };
    expect(messageFor(schema, { ...valid, title: " " })).toBe("Title: must not be blank");
    expect(messageFor(schema, { ...valid, template_id: "x" })).toBe("Template: must be a template id");
    expect(messageFor(schema, { ...valid, body: { questions: [{ max_marks: 1 }, { max_marks: 101 }] } })).toBe("Question 2, maximum marks: must be at most 100");
    expect(messageFor(schema, { template_id: valid.template_id, body: valid.body })).toBe("Title: required");
  });

  it("words zod's own messages plainly: types, choices, sizes, unknown fields, the whole input", () => {
    expect(messageFor(z.object({ page_count: z.number() }), { page_count: "3" })).toBe("Page count: must be a number");
    expect(messageFor(z.object({ role: z.enum(["teacher", "student"]) }), { role: "x" })).toBe("Role: must be one of: teacher, student");
    expect(messageFor(z.object({ name: z.string().max(3) }), { name: "long" })).toBe("Name: must have at most 3 characters");
    expect(messageFor(z.object({ tags: z.array(z.string()).min(1) }), { tags: [] })).toBe("Tags: must have at least 1 item");
    expect(messageFor(z.strictObject({ a: z.string() }), { a: "x", owner_id: "y" })).toBe("Unknown field: owner_id");
    expect(messageFor(z.object({ a: z.string() }), null)).toBe("The request must be a JSON object");
    expect(messageFor(z.object({ end_time: z.string().refine(() => false, "end_time must be after start_time") }), { end_time: "9" })).toBe(
      "End time: must be after start time",
    );
  });

  it("keeps the path as the parameter at fault for the /v1 dialect", () => {
    const result = z.object({ body: z.object({ awarded_marks: z.number() }) }).safeParse({ body: { awarded_marks: "x" } });
    expect(result.success).toBe(false);
    const error = toAppError(result.error);
    expect([error.message, error.param]).toEqual(["Mark: must be a number", "body.awarded_marks"]);
  });
});
