CREATE TABLE "exam_saved_comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"template_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"text" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_saved_comments_text_not_blank" CHECK (length(trim("exam_saved_comments"."text")) > 0)
);
--> statement-breakpoint
ALTER TABLE "exam_saved_comments" ADD CONSTRAINT "exam_saved_comments_template_id_exam_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."exam_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_saved_comments" ADD CONSTRAINT "exam_saved_comments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_saved_comments" ADD CONSTRAINT "exam_saved_comments_question_fk" FOREIGN KEY ("template_id","question_id") REFERENCES "public"."exam_questions"("template_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "exam_saved_comments_question_text_key" ON "exam_saved_comments" USING btree ("question_id","text");--> statement-breakpoint

-- Written by hand: the staff who see a template read and add its questions' saved comments; a comment is
-- removed by whoever saved it or by the template's owner.
GRANT SELECT, INSERT, DELETE ON exam_saved_comments TO markbook_app;--> statement-breakpoint
ALTER TABLE exam_saved_comments ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY exam_saved_comments_read ON exam_saved_comments FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));--> statement-breakpoint
CREATE POLICY exam_saved_comments_staff_insert ON exam_saved_comments FOR INSERT TO markbook_app
  WITH CHECK (created_by = app.current_user_id() AND template_id IN (SELECT id FROM exam_templates));--> statement-breakpoint
CREATE POLICY exam_saved_comments_delete ON exam_saved_comments FOR DELETE TO markbook_app
  USING (created_by = app.current_user_id() OR template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
