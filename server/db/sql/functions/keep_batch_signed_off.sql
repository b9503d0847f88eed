-- Trigger of exam_batch_sign_offs: keeps exam_batches.signed_off (a current sign-off: one not reopened),
-- which every write of the batch reads with the batch row instead of asking exam_batch_sign_offs under its
-- row-level security. SECURITY DEFINER: a head's sign-off changes the owner's batch row.

CREATE OR REPLACE FUNCTION app.keep_batch_signed_off() RETURNS trigger
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
  $$;
