-- Trigger of exam_submissions: every script of a batch has its number ("Script 17"). An insert that
-- leaves the number out (the default 0) takes the batch's next one; an insert that gives one (a printed
-- script's) moves the batch's counter past it. Whichever code path inserts the row. The counter row's
-- lock orders the inserts of one batch. SECURITY DEFINER: a teacher who may insert a submission (the
-- batch owner) may not otherwise update another's batch row.

CREATE OR REPLACE FUNCTION app.number_new_script() RETURNS trigger
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
  $$;
