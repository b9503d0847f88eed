-- Trigger of exam_submissions: a marked absence holds only while the student has no scan and no mark.
-- A scan that arrives (uploaded, matched in order or by hand, or assigned) or a mark that moves the
-- status on clears it, whichever code path writes the row. server/exam/absence.ts refuses to mark a
-- student with a scan or marks absent.

CREATE OR REPLACE FUNCTION app.clear_absence_when_present() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF NEW.scan_url IS NOT NULL OR NEW.status <> 'absent' THEN
      NEW.absence_marked_at := NULL;
    END IF;
    RETURN NEW;
  END
  $$;
