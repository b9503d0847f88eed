CREATE TABLE "exam_allocations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"marker_id" uuid NOT NULL,
	"question_id" uuid,
	"first_script" integer,
	"last_script" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_allocations_says_what" CHECK ("exam_allocations"."question_id" is not null or "exam_allocations"."first_script" is not null or "exam_allocations"."last_script" is not null),
	CONSTRAINT "exam_allocations_range" CHECK ("exam_allocations"."first_script" is null or "exam_allocations"."last_script" is null or "exam_allocations"."first_script" <= "exam_allocations"."last_script")
);
--> statement-breakpoint
CREATE TABLE "exam_batch_markers" (
	"batch_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"added_by" uuid,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_batch_markers_pkey" PRIMARY KEY("batch_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "exam_mark_claims" (
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"marker_id" uuid NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "exam_mark_claims_pkey" PRIMARY KEY("submission_id","question_id")
);
--> statement-breakpoint
ALTER TABLE "exam_allocations" ADD CONSTRAINT "exam_allocations_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_allocations" ADD CONSTRAINT "exam_allocations_marker_fk" FOREIGN KEY ("batch_id","marker_id") REFERENCES "public"."exam_batch_markers"("batch_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batch_markers" ADD CONSTRAINT "exam_batch_markers_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batch_markers" ADD CONSTRAINT "exam_batch_markers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batch_markers" ADD CONSTRAINT "exam_batch_markers_added_by_users_id_fk" FOREIGN KEY ("added_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_claims" ADD CONSTRAINT "exam_mark_claims_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_claims" ADD CONSTRAINT "exam_mark_claims_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_claims" ADD CONSTRAINT "exam_mark_claims_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_claims" ADD CONSTRAINT "exam_mark_claims_marker_id_users_id_fk" FOREIGN KEY ("marker_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exam_allocations_batch_marker_idx" ON "exam_allocations" USING btree ("batch_id","marker_id");--> statement-breakpoint
CREATE INDEX "exam_batch_markers_user_idx" ON "exam_batch_markers" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "exam_mark_claims_batch_idx" ON "exam_mark_claims" USING btree ("batch_id","marker_id");--> statement-breakpoint

-- Written by hand: shared marking (issue 19; server/exam/shared-marking.ts).
-- Why the caller may not write the mark of (submission, question) of a batch, or null: a batch without
-- markers is marked as before (null); once it has markers only its owner and its markers write, a marker
-- within their allocation ('allocation' otherwise), and nobody writes a pair another marker holds an
-- unexpired claim on ('claimed'). marks.ts reads it as a refusal code and the policies below enforce it,
-- so a write that skips marks.ts is refused all the same. SECURITY DEFINER: a policy of exam_mark_entries
-- reads markers, allocations and claims whatever the caller may read; it answers null for a batch outside
-- the caller's school (the other policies refuse there), so it tells nothing about another school.
CREATE OR REPLACE FUNCTION app.mark_write_refusal(p_batch uuid, p_submission uuid, p_question uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    caller uuid := app.current_user_id();
    owner uuid;
    script integer;
  BEGIN
    IF p_batch IS NULL OR NOT EXISTS (SELECT 1 FROM exam_batch_markers WHERE batch_id = p_batch) THEN
      RETURN NULL;
    END IF;
    SELECT teacher_id INTO owner FROM exam_batches
      WHERE id = p_batch AND institute_id IN (SELECT app.my_staff_institute_ids());
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    IF owner IS DISTINCT FROM caller THEN
      SELECT script_number INTO script FROM exam_submissions WHERE id = p_submission AND batch_id = p_batch;
      IF NOT EXISTS (
        SELECT 1 FROM exam_allocations a
        WHERE a.batch_id = p_batch AND a.marker_id = caller
          AND (a.question_id IS NULL OR a.question_id = p_question)
          AND (a.first_script IS NULL OR script >= a.first_script)
          AND (a.last_script IS NULL OR script <= a.last_script)
      ) THEN
        RETURN 'allocation';
      END IF;
    END IF;
    IF EXISTS (
      SELECT 1 FROM exam_mark_claims c
      WHERE c.submission_id = p_submission AND c.question_id = p_question AND c.marker_id <> caller AND c.expires_at > now()
    ) THEN
      RETURN 'claimed';
    END IF;
    RETURN NULL;
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.mark_write_refusal(uuid, uuid, uuid) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.mark_write_refusal(uuid, uuid, uuid) TO markbook_app;--> statement-breakpoint

-- A restrictive policy: whatever else lets the caller write a mark (staff of the school, the owner moving
-- an unmatched scan's marks), the pair must be theirs to write.
CREATE POLICY exam_mark_entries_shared_insert ON exam_mark_entries AS RESTRICTIVE FOR INSERT TO markbook_app
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);--> statement-breakpoint
CREATE POLICY exam_mark_entries_shared_update ON exam_mark_entries AS RESTRICTIVE FOR UPDATE TO markbook_app
  USING (true)
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);--> statement-breakpoint

-- Whether a person is active staff (admin, head of department, teacher) of the batch's school: who may be
-- invited to mark it. SECURITY DEFINER: the owner may not read every membership of the school.
CREATE OR REPLACE FUNCTION app.is_active_staff_of_batch_school(p_user uuid, p_batch uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN EXISTS (
      SELECT 1 FROM exam_batches b
        JOIN institute_memberships m ON m.institute_id = b.institute_id
        JOIN users u ON u.id = m.user_id
      WHERE b.id = p_batch AND m.user_id = p_user AND u.deactivated_at IS NULL
        AND m.role IN ('school_admin', 'department_head', 'teacher')
        AND b.institute_id IN (SELECT app.my_staff_institute_ids())
    );
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.is_active_staff_of_batch_school(uuid, uuid) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.is_active_staff_of_batch_school(uuid, uuid) TO markbook_app;--> statement-breakpoint

-- Markers and allocations: the staff who see the batch read them; its owner changes them.
GRANT SELECT, INSERT, DELETE ON exam_batch_markers, exam_allocations TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_mark_claims TO markbook_app;--> statement-breakpoint
ALTER TABLE exam_batch_markers ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_allocations ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_mark_claims ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY exam_batch_markers_read ON exam_batch_markers FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_batch_markers_owner_insert ON exam_batch_markers FOR INSERT TO markbook_app
  WITH CHECK (
    added_by = app.current_user_id()
    AND batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id())
    AND app.is_active_staff_of_batch_school(user_id, batch_id)
  );--> statement-breakpoint
CREATE POLICY exam_batch_markers_owner_delete ON exam_batch_markers FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_allocations_read ON exam_allocations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_allocations_owner_insert ON exam_allocations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_allocations_owner_delete ON exam_allocations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint

-- Claims: staff who see the batch read them (who is marking what); a caller claims for themselves only
-- a pair of their allocation, of a submission of the claim's batch (the check is on the proposed row,
-- before the insert meets a live claim of another marker, so it leaves claims out: the ON CONFLICT
-- clause decides between claims); a claim is released by its marker or the
-- batch's owner. Taking over an expired claim is an update of the row (INSERT … ON CONFLICT DO UPDATE
-- … WHERE expired or the caller's): the primary key makes two claims at once one winner.
CREATE POLICY exam_mark_claims_read ON exam_mark_claims FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_mark_claims_insert ON exam_mark_claims FOR INSERT TO markbook_app
  WITH CHECK (
    marker_id = app.current_user_id()
    AND submission_id IN (SELECT id FROM exam_submissions s WHERE s.batch_id = exam_mark_claims.batch_id)
    AND app.mark_write_refusal(batch_id, submission_id, question_id) IS DISTINCT FROM 'allocation'
  );--> statement-breakpoint
CREATE POLICY exam_mark_claims_update ON exam_mark_claims FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (
    marker_id = app.current_user_id()
    AND submission_id IN (SELECT id FROM exam_submissions s WHERE s.batch_id = exam_mark_claims.batch_id)
    AND app.mark_write_refusal(batch_id, submission_id, question_id) IS DISTINCT FROM 'allocation'
  );--> statement-breakpoint
CREATE POLICY exam_mark_claims_delete ON exam_mark_claims FOR DELETE TO markbook_app
  USING (marker_id = app.current_user_id() OR batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
