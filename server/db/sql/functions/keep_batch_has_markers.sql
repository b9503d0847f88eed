-- Trigger of exam_batch_markers: keeps exam_batches.has_markers, which every mark write reads with the
-- batch row instead of asking exam_batch_markers under its row-level security per mark (that cost typed
-- saves an eighth of their rate, bench:exam). SECURITY DEFINER: a marker's invitation changes the owner's
-- batch row.

CREATE OR REPLACE FUNCTION app.keep_batch_has_markers() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_batch uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.batch_id ELSE NEW.batch_id END;
  BEGIN
    UPDATE exam_batches SET has_markers = EXISTS (SELECT 1 FROM exam_batch_markers WHERE batch_id = v_batch)
      WHERE id = v_batch AND has_markers IS DISTINCT FROM EXISTS (SELECT 1 FROM exam_batch_markers WHERE batch_id = v_batch);
    RETURN NULL;
  END
  $$;
