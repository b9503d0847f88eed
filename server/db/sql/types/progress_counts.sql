-- The pair app.submission_progress answers: the leaf questions of a template and the confirmed marks
-- of a submission on them. A named type, so that a statement can keep the pair in a column (an
-- anonymous record cannot be read back from a CTE).

CREATE TYPE app.progress_counts AS (leaves int, confirmed int);
