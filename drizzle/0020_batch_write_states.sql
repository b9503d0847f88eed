ALTER TABLE "exam_batches" ADD COLUMN "has_markers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "signed_off" boolean DEFAULT false NOT NULL;--> statement-breakpoint

-- Written by hand: every mark write asks whether its batch has markers (shared marking, 0018) and whether
-- it is signed off (moderation, 0019). Asked of those tables, with their row-level security, per mark, the
-- questions cost typed saves of 32 teachers an eighth of their rate (bench:exam); as two columns of the
-- batch row, which the write reads anyway, they cost nothing. Triggers keep them, whoever writes the
-- tables (SECURITY DEFINER: a marker's invitation or a head's sign-off changes the owner's batch row).
UPDATE exam_batches b SET
  has_markers = EXISTS (SELECT 1 FROM exam_batch_markers m WHERE m.batch_id = b.id),
  signed_off = EXISTS (SELECT 1 FROM exam_batch_sign_offs o WHERE o.batch_id = b.id AND o.reopened_at IS NULL);--> statement-breakpoint
CREATE FUNCTION app.keep_batch_has_markers() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_batch uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.batch_id ELSE NEW.batch_id END;
  BEGIN
    UPDATE exam_batches SET has_markers = EXISTS (SELECT 1 FROM exam_batch_markers WHERE batch_id = v_batch)
      WHERE id = v_batch AND has_markers IS DISTINCT FROM EXISTS (SELECT 1 FROM exam_batch_markers WHERE batch_id = v_batch);
    RETURN NULL;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_batch_markers_keep_batch AFTER INSERT OR DELETE ON exam_batch_markers
  FOR EACH ROW EXECUTE FUNCTION app.keep_batch_has_markers();--> statement-breakpoint
CREATE FUNCTION app.keep_batch_signed_off() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_batch uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.batch_id ELSE NEW.batch_id END;
    v_signed boolean;
  BEGIN
    v_signed := EXISTS (SELECT 1 FROM exam_batch_sign_offs WHERE batch_id = v_batch AND reopened_at IS NULL);
    UPDATE exam_batches SET signed_off = v_signed WHERE id = v_batch AND signed_off IS DISTINCT FROM v_signed;
    RETURN NULL;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_batch_sign_offs_keep_batch AFTER INSERT OR UPDATE OR DELETE ON exam_batch_sign_offs
  FOR EACH ROW EXECUTE FUNCTION app.keep_batch_signed_off();--> statement-breakpoint

-- The restrictive policies of 0018, asked first of the batches without markers: an uncorrelated list the
-- statement reads once, then the function only for a shared batch's marks.
DROP POLICY exam_mark_entries_shared_insert ON exam_mark_entries;--> statement-breakpoint
DROP POLICY exam_mark_entries_shared_update ON exam_mark_entries;--> statement-breakpoint
CREATE POLICY exam_mark_entries_shared_insert ON exam_mark_entries AS RESTRICTIVE FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE NOT has_markers)
    OR app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);--> statement-breakpoint
CREATE POLICY exam_mark_entries_shared_update ON exam_mark_entries AS RESTRICTIVE FOR UPDATE TO markbook_app
  USING (true)
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE NOT has_markers)
    OR app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);
