-- The rule of a rubric mark: the items' points summed, within 0..max_marks (a question without a maximum
-- stops at what numeric(8, 2) holds). An expression, which the planner inlines where it is used.

CREATE OR REPLACE FUNCTION app.rubric_clamp(total numeric, max_marks numeric) RETURNS numeric
  LANGUAGE sql IMMUTABLE
  AS $$ SELECT greatest(0, least(coalesce(total, 0), coalesce(max_marks, 999999.99)))::numeric(8, 2) $$;
