CREATE TABLE "exam_batch_sign_offs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"signed_off_by" uuid,
	"signed_off_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reopened_by" uuid,
	"reopened_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "exam_moderation_samples" (
	"batch_id" uuid PRIMARY KEY NOT NULL,
	"tolerance" numeric(8, 2) DEFAULT '1' NOT NULL,
	"percent" integer,
	"chosen_by" uuid,
	"chosen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_moderation_samples_tolerance_non_negative" CHECK ("exam_moderation_samples"."tolerance" >= 0),
	CONSTRAINT "exam_moderation_samples_percent_range" CHECK ("exam_moderation_samples"."percent" is null or "exam_moderation_samples"."percent" between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "exam_moderation_scripts" (
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	CONSTRAINT "exam_moderation_scripts_batch_id_submission_id_pk" PRIMARY KEY("batch_id","submission_id")
);
--> statement-breakpoint
CREATE TABLE "exam_reconciliations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"first_marks" numeric(8, 2) NOT NULL,
	"first_marker_id" uuid,
	"first_marked_at" timestamp with time zone NOT NULL,
	"second_marks" numeric(8, 2) NOT NULL,
	"final_marks" numeric(8, 2) NOT NULL,
	"reconciled_by" uuid,
	"reconciled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exam_second_marks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"marker_id" uuid,
	"awarded_marks" numeric(8, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_second_marks_awarded_non_negative" CHECK ("exam_second_marks"."awarded_marks" >= 0)
);
--> statement-breakpoint
ALTER TABLE "exam_batch_sign_offs" ADD CONSTRAINT "exam_batch_sign_offs_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batch_sign_offs" ADD CONSTRAINT "exam_batch_sign_offs_signed_off_by_users_id_fk" FOREIGN KEY ("signed_off_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batch_sign_offs" ADD CONSTRAINT "exam_batch_sign_offs_reopened_by_users_id_fk" FOREIGN KEY ("reopened_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_moderation_samples" ADD CONSTRAINT "exam_moderation_samples_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_moderation_samples" ADD CONSTRAINT "exam_moderation_samples_chosen_by_users_id_fk" FOREIGN KEY ("chosen_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_moderation_scripts" ADD CONSTRAINT "exam_moderation_scripts_batch_id_exam_moderation_samples_batch_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_moderation_samples"("batch_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_moderation_scripts" ADD CONSTRAINT "exam_moderation_scripts_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_reconciliations" ADD CONSTRAINT "exam_reconciliations_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_reconciliations" ADD CONSTRAINT "exam_reconciliations_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_reconciliations" ADD CONSTRAINT "exam_reconciliations_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_reconciliations" ADD CONSTRAINT "exam_reconciliations_first_marker_id_users_id_fk" FOREIGN KEY ("first_marker_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_reconciliations" ADD CONSTRAINT "exam_reconciliations_reconciled_by_users_id_fk" FOREIGN KEY ("reconciled_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_second_marks" ADD CONSTRAINT "exam_second_marks_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_second_marks" ADD CONSTRAINT "exam_second_marks_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_second_marks" ADD CONSTRAINT "exam_second_marks_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_second_marks" ADD CONSTRAINT "exam_second_marks_marker_id_users_id_fk" FOREIGN KEY ("marker_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "exam_batch_sign_offs_current_key" ON "exam_batch_sign_offs" USING btree ("batch_id") WHERE "exam_batch_sign_offs"."reopened_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "exam_reconciliations_pair_key" ON "exam_reconciliations" USING btree ("submission_id","question_id");--> statement-breakpoint
CREATE INDEX "exam_reconciliations_batch_idx" ON "exam_reconciliations" USING btree ("batch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "exam_second_marks_pair_key" ON "exam_second_marks" USING btree ("submission_id","question_id");--> statement-breakpoint
CREATE INDEX "exam_second_marks_batch_idx" ON "exam_second_marks" USING btree ("batch_id");--> statement-breakpoint

-- Written by hand: who reads and writes moderation. A moderator of a batch is its owner or a
-- department head of its school. Staff of the school read the sample, the reconciliations and the
-- sign-offs; second marks are read by the moderators and by their own marker only (the first marker
-- never reads the second mark of their script through them). Only moderators choose the sample and
-- reconcile; only department heads sign off and reopen.
CREATE OR REPLACE FUNCTION app.my_head_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles('{department_head}'); END $$;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_head_institute_ids() TO markbook_app;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_moderated_batch_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT id FROM exam_batches
    WHERE teacher_id = app.current_user_id() OR institute_id IN (SELECT app.my_head_institute_ids()); END $$;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_moderated_batch_ids() TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_moderation_samples, exam_moderation_scripts TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON exam_second_marks, exam_reconciliations, exam_batch_sign_offs TO markbook_app;--> statement-breakpoint
ALTER TABLE exam_moderation_samples ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_moderation_scripts ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_second_marks ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_reconciliations ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_batch_sign_offs ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY exam_moderation_samples_read ON exam_moderation_samples FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_moderation_samples_moderator_write ON exam_moderation_samples FOR ALL TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND chosen_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_moderation_scripts_read ON exam_moderation_scripts FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_moderation_scripts_moderator_write ON exam_moderation_scripts FOR ALL TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()));--> statement-breakpoint
CREATE POLICY exam_second_marks_read ON exam_second_marks FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND (marker_id = app.current_user_id() OR batch_id IN (SELECT app.my_moderated_batch_ids())));--> statement-breakpoint
CREATE POLICY exam_second_marks_marker_insert ON exam_second_marks FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marker_id = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_second_marks_marker_update ON exam_second_marks FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marker_id = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_reconciliations_read ON exam_reconciliations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_reconciliations_moderator_insert ON exam_reconciliations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND reconciled_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_reconciliations_moderator_update ON exam_reconciliations FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND reconciled_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_batch_sign_offs_read ON exam_batch_sign_offs FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_batch_sign_offs_head_insert ON exam_batch_sign_offs FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())) AND signed_off_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_batch_sign_offs_head_reopen ON exam_batch_sign_offs FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())) AND reopened_by = app.current_user_id());--> statement-breakpoint

-- A signed-off batch is read-only: a rubric edit re-scores the marks of open batches that are not signed
-- off (as 0015's, with that one condition more; its grants stay).
CREATE OR REPLACE FUNCTION app.rescore_rubric_marks(p_edit uuid) RETURNS integer
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_edit exam_rubric_edits%ROWTYPE;
    v_count integer;
  BEGIN
    SELECT * INTO v_edit FROM exam_rubric_edits WHERE id = p_edit;
    IF NOT FOUND OR v_edit.edited_by IS DISTINCT FROM app.current_user_id()
      OR NOT EXISTS (SELECT 1 FROM exam_templates t WHERE t.id = v_edit.template_id AND t.owner_id = app.current_user_id()) THEN
      RAISE EXCEPTION 'only the owner of a template re-scores its marks' USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- The question's rubric lock (server/exam/marks.ts): writes applying its items hold it shared. Once
    -- it is held, every such write has committed (the statements below see its mark) or waits for this
    -- edit to commit (and then sums the new points).
    PERFORM pg_advisory_xact_lock(1917, hashtext(v_edit.question_id::text));
    -- The question's items as one map (id → points), read once: a sum per mark from it is nine times
    -- cheaper than app.rubric_mark's query per mark (10,000 marks: 28 ms against 256 ms).
    WITH points AS MATERIALIZED (
      SELECT coalesce(jsonb_object_agg(ri.id::text, ri.points), '{}'::jsonb) AS map FROM exam_rubric_items ri WHERE ri.question_id = v_edit.question_id
    ), next AS (
      SELECT m.id, m.batch_id, m.awarded_marks AS before,
        app.rubric_clamp((SELECT sum((points.map ->> item)::numeric) FROM jsonb_array_elements_text(m.mark_scheme_detail -> 'items') item), q.max_marks) AS after,
        CASE WHEN v_edit.kind = 'deleted' THEN jsonb_set(m.mark_scheme_detail, '{items}',
            (SELECT coalesce(jsonb_agg(item ORDER BY ord), '[]'::jsonb)
              FROM jsonb_array_elements(m.mark_scheme_detail -> 'items') WITH ORDINALITY AS listed(item, ord)
              WHERE item #>> '{}' <> v_edit.rubric_item_id::text))
          ELSE m.mark_scheme_detail END AS detail
      FROM points, exam_mark_entries m
      JOIN exam_batches b ON b.id = m.batch_id AND b.status = 'open'
        AND NOT EXISTS (SELECT 1 FROM exam_batch_sign_offs o WHERE o.batch_id = b.id AND o.reopened_at IS NULL)
      JOIN exam_questions q ON q.id = m.question_id
      WHERE m.question_id = v_edit.question_id AND m.mark_scheme_detail ->> 'type' = 'rubric'
        AND (v_edit.kind = 'max_marks' OR m.mark_scheme_detail -> 'items' @> jsonb_build_array(v_edit.rubric_item_id::text))
    ), changed AS (
      UPDATE exam_mark_entries m SET awarded_marks = next.after, mark_scheme_detail = next.detail, updated_at = now()
      FROM next
      WHERE m.id = next.id AND (m.awarded_marks IS DISTINCT FROM next.after OR m.mark_scheme_detail IS DISTINCT FROM next.detail)
      RETURNING m.id, next.batch_id, next.before, next.after
    ), audited AS (
      INSERT INTO exam_mark_rescores (edit_id, mark_id, batch_id, awarded_before, awarded_after)
      SELECT p_edit, id, batch_id, before, after FROM changed
      RETURNING 1
    )
    SELECT count(*) INTO v_count FROM audited;
    UPDATE exam_rubric_edits SET marks_rescored = v_count WHERE id = p_edit;
    RETURN v_count;
  END
  $$;
