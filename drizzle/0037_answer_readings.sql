CREATE TABLE "exam_answer_readings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"response_area_id" uuid NOT NULL,
	"page_number" integer NOT NULL,
	"kind" text NOT NULL,
	"answer" jsonb,
	"blank" text,
	"measurements" jsonb NOT NULL,
	"alignment" text NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	"automatic_mark_undone" boolean DEFAULT false NOT NULL,
	CONSTRAINT "exam_answer_readings_submission_area_key" UNIQUE("submission_id","response_area_id"),
	CONSTRAINT "exam_answer_readings_kind_known" CHECK ("exam_answer_readings"."kind" in ('ticks', 'written')),
	CONSTRAINT "exam_answer_readings_alignment_known" CHECK ("exam_answer_readings"."alignment" in ('code', 'content', 'none')),
	CONSTRAINT "exam_answer_readings_page_positive" CHECK ("exam_answer_readings"."page_number" >= 1),
	CONSTRAINT "exam_answer_readings_answer_bounded" CHECK ("exam_answer_readings"."answer" is null or ("exam_answer_readings"."kind" = 'ticks' and jsonb_typeof("exam_answer_readings"."answer") = 'array' and jsonb_array_length("exam_answer_readings"."answer") <= 26)),
	CONSTRAINT "exam_answer_readings_blank_known" CHECK (("exam_answer_readings"."kind" = 'ticks' and "exam_answer_readings"."blank" is null) or ("exam_answer_readings"."kind" = 'written' and "exam_answer_readings"."blank" in ('blank', 'written', 'uncertain'))),
	CONSTRAINT "exam_answer_readings_measurements_bounded" CHECK (jsonb_typeof("exam_answer_readings"."measurements") = 'object' and pg_column_size("exam_answer_readings"."measurements") <= 8192)
);
--> statement-breakpoint
ALTER TABLE "exam_mark_entries" DROP CONSTRAINT "exam_mark_entries_marked_by_known";--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "auto_zero_blanks" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "exam_answer_readings" ADD CONSTRAINT "exam_answer_readings_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_answer_readings" ADD CONSTRAINT "exam_answer_readings_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_answer_readings" ADD CONSTRAINT "exam_answer_readings_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_answer_readings" ADD CONSTRAINT "exam_answer_readings_response_area_id_exam_response_areas_id_fk" FOREIGN KEY ("response_area_id") REFERENCES "public"."exam_response_areas"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exam_answer_readings_batch_idx" ON "exam_answer_readings" USING btree ("batch_id","question_id");--> statement-breakpoint
ALTER TABLE "exam_mark_entries" ADD CONSTRAINT "exam_mark_entries_marked_by_known" CHECK ("exam_mark_entries"."marked_by" in ('teacher', 'ticks', 'blank'));--> statement-breakpoint
ALTER TABLE exam_answer_readings ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
GRANT SELECT ON exam_answer_readings TO markbook_app;--> statement-breakpoint
GRANT UPDATE (automatic_mark_undone) ON exam_answer_readings TO markbook_app;--> statement-breakpoint
CREATE POLICY exam_answer_readings_read ON exam_answer_readings FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_answer_readings_writer_undo ON exam_answer_readings FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.mark_write_all_or_nothing(p_refusal text, p_write text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE
  AS $$
  BEGIN
    IF p_refusal IS NOT NULL THEN
      RAISE EXCEPTION 'mark write refused %', p_write USING ERRCODE = 'P0001';
    END IF;
    RETURN true;
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.mark_write_all_or_nothing(text, text) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.mark_write_all_or_nothing(text, text) TO markbook_app;
