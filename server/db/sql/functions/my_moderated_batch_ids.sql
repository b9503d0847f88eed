-- The batches the caller moderates: a moderator of a batch is its owner or a department head of its
-- school. Only moderators choose the moderation sample and reconcile; they read every second mark of the
-- batch (server/exam/moderation.ts).

CREATE OR REPLACE FUNCTION app.my_moderated_batch_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT id FROM exam_batches
    WHERE teacher_id = app.current_user_id() OR institute_id IN (SELECT app.my_head_institute_ids()); END $$;
GRANT EXECUTE ON FUNCTION app.my_moderated_batch_ids() TO markbook_app;
