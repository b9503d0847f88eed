ALTER TABLE "exam_batches" ADD COLUMN "next_script_number" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD COLUMN "script_number" integer DEFAULT 0 NOT NULL;--> statement-breakpoint

-- Written by hand: every script of a batch gets its number ("Script 17"), which anonymous marking
-- shows instead of the name and shared marking allocates by. A printed script keeps the number on its
-- pages; the others are numbered after the batch's printed numbers, in a shuffled order, so that a
-- number says nothing of where the name comes in the alphabet.
UPDATE exam_submissions s SET script_number = p.script_number
  FROM exam_printed_scripts p WHERE p.submission_id = s.id;--> statement-breakpoint
UPDATE exam_submissions s SET script_number = numbered.number
  FROM (
    SELECT s2.id, coalesce((SELECT max(p.script_number) FROM exam_printed_scripts p WHERE p.batch_id = s2.batch_id), 0)
      + row_number() OVER (PARTITION BY s2.batch_id ORDER BY random()) AS number
    FROM exam_submissions s2 WHERE s2.script_number = 0
  ) numbered
  WHERE s.id = numbered.id;--> statement-breakpoint
UPDATE exam_batches b SET next_script_number = 1 + greatest(
    coalesce((SELECT max(script_number) FROM exam_submissions WHERE batch_id = b.id), 0),
    coalesce((SELECT max(script_number) FROM exam_printed_scripts WHERE batch_id = b.id), 0));--> statement-breakpoint

ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_batch_script_key" UNIQUE("batch_id","script_number");--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_script_number_range" CHECK ("exam_submissions"."script_number" between 1 and 9999);--> statement-breakpoint

-- An insert that leaves the number out (the default 0) takes the batch's next one; an insert that gives
-- one (a printed script's) moves the batch's counter past it. Whichever code path inserts the row. The
-- counter row's lock orders the inserts of one batch. SECURITY DEFINER: a teacher who may insert a
-- submission (the batch owner, by 0001's policy) may not otherwise update another's batch row.
CREATE FUNCTION app.number_new_script() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF NEW.script_number IS NULL OR NEW.script_number = 0 THEN
      UPDATE exam_batches SET next_script_number = next_script_number + 1 WHERE id = NEW.batch_id
        RETURNING next_script_number - 1 INTO NEW.script_number;
    ELSE
      UPDATE exam_batches SET next_script_number = greatest(next_script_number, NEW.script_number + 1) WHERE id = NEW.batch_id;
    END IF;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_submissions_number_script BEFORE INSERT ON exam_submissions
  FOR EACH ROW EXECUTE FUNCTION app.number_new_script();--> statement-breakpoint
COMMENT ON COLUMN exam_submissions.script_number IS 'The script''s number in its batch (Script 17), never reused; the printed number when printed';
