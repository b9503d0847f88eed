-- The mark a set of rubric items makes (app.rubric_clamp of the sum of their points), and how many of the
-- items listed are not the question's (they count for nothing: a mark write refuses them). What a mark
-- write (server/exam/marks.ts) calls for each write. PL/pgSQL, which keeps its plan for the session: a
-- SQL function with a FROM clause is not inlined and is planned again at every call (measured: a third
-- fewer rubric saves per second). It reads the items with the caller's rights.

CREATE OR REPLACE FUNCTION app.rubric_mark(detail jsonb, question uuid, max_marks numeric, OUT awarded numeric, OUT unknown_items integer)
  LANGUAGE plpgsql STABLE
  AS $$
  BEGIN
    SELECT app.rubric_clamp(sum(ri.points), max_marks), jsonb_array_length(detail -> 'items') - count(*)::integer
      INTO awarded, unknown_items
      FROM public.exam_rubric_items ri
      WHERE ri.question_id = question AND ri.id::text IN (SELECT jsonb_array_elements_text(detail -> 'items'));
  END
  $$;
