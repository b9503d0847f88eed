ALTER TABLE "exam_submissions" ADD COLUMN "absence_marked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_absent_without_scan" CHECK ("exam_submissions"."absence_marked_at" is null or "exam_submissions"."scan_url" is null);--> statement-breakpoint

-- The lines above are from drizzle-kit generate (server/db/schema); what follows is written by hand.
-- Nothing to grant: markbook_app updates exam_submissions under the staff update policy of 0001, and
-- that grant covers every column of the table, absence_marked_at included.

-- A marked absence holds only while the student has no scan and no mark: a scan that arrives (uploaded,
-- matched in order or by hand, or assigned) or a mark that moves the status on clears it, whichever
-- code path writes the row. server/exam/absence.ts refuses to mark a student with a scan or marks absent.
CREATE FUNCTION app.clear_absence_when_present() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF NEW.scan_url IS NOT NULL OR NEW.status <> 'absent' THEN
      NEW.absence_marked_at := NULL;
    END IF;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_submissions_clear_absence BEFORE UPDATE ON exam_submissions
  FOR EACH ROW WHEN (NEW.absence_marked_at IS NOT NULL) EXECUTE FUNCTION app.clear_absence_when_present();--> statement-breakpoint
COMMENT ON COLUMN exam_submissions.absence_marked_at IS 'When a teacher marked the student absent; null when the student has no scan yet without being marked absent';
