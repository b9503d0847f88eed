CREATE TYPE "public"."annotation_kind" AS ENUM('tick', 'cross', 'text', 'pen', 'highlight', 'stamp');--> statement-breakpoint
CREATE TYPE "public"."annotation_layer" AS ENUM('marking', 'second_marking');--> statement-breakpoint
CREATE TYPE "public"."review_outcome" AS ENUM('kept', 'changed');--> statement-breakpoint
CREATE TYPE "public"."review_request_status" AS ENUM('open', 'answered');--> statement-breakpoint
CREATE TABLE "exam_annotations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"page" integer NOT NULL,
	"kind" "annotation_kind" NOT NULL,
	"layer" "annotation_layer" DEFAULT 'marking' NOT NULL,
	"geometry" jsonb NOT NULL,
	"text" text,
	"question_id" uuid,
	"rubric_item_id" uuid,
	"author_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_annotations_page_positive" CHECK ("exam_annotations"."page" >= 1),
	CONSTRAINT "exam_annotations_geometry_object" CHECK (jsonb_typeof("exam_annotations"."geometry") = 'object'),
	CONSTRAINT "exam_annotations_geometry_bounded" CHECK (pg_column_size("exam_annotations"."geometry") <= 262144),
	CONSTRAINT "exam_annotations_text_bounded" CHECK ("exam_annotations"."text" is null or length("exam_annotations"."text") <= 2000)
);
--> statement-breakpoint
CREATE TABLE "exam_mark_history" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"marks_before" numeric(8, 2),
	"marks_after" numeric(8, 2),
	"changed_by" uuid,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reason" text
);
--> statement-breakpoint
CREATE TABLE "exam_review_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"student_id" uuid NOT NULL,
	"reason" text NOT NULL,
	"status" "review_request_status" DEFAULT 'open' NOT NULL,
	"assigned_to" uuid,
	"marks_before" numeric(8, 2),
	"marks_after" numeric(8, 2),
	"outcome" "review_outcome",
	"reply" text,
	"answered_by" uuid,
	"answered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_review_requests_reason_length" CHECK (length(trim("exam_review_requests"."reason")) between 1 and 2000),
	CONSTRAINT "exam_review_requests_reply_length" CHECK ("exam_review_requests"."reply" is null or length("exam_review_requests"."reply") <= 2000),
	CONSTRAINT "exam_review_requests_answered_whole" CHECK (("exam_review_requests"."status" = 'answered') = ("exam_review_requests"."answered_at" is not null and "exam_review_requests"."outcome" is not null))
);
--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "released_by" uuid;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "release_scope" text;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "reviews_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD COLUMN "released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "exam_annotations" ADD CONSTRAINT "exam_annotations_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_annotations" ADD CONSTRAINT "exam_annotations_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_annotations" ADD CONSTRAINT "exam_annotations_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_annotations" ADD CONSTRAINT "exam_annotations_rubric_item_id_exam_rubric_items_id_fk" FOREIGN KEY ("rubric_item_id") REFERENCES "public"."exam_rubric_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_annotations" ADD CONSTRAINT "exam_annotations_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_history" ADD CONSTRAINT "exam_mark_history_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_history" ADD CONSTRAINT "exam_mark_history_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_history" ADD CONSTRAINT "exam_mark_history_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_history" ADD CONSTRAINT "exam_mark_history_changed_by_users_id_fk" FOREIGN KEY ("changed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_student_id_users_id_fk" FOREIGN KEY ("student_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_assigned_to_users_id_fk" FOREIGN KEY ("assigned_to") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_review_requests" ADD CONSTRAINT "exam_review_requests_answered_by_users_id_fk" FOREIGN KEY ("answered_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exam_annotations_submission_idx" ON "exam_annotations" USING btree ("submission_id","page");--> statement-breakpoint
CREATE INDEX "exam_annotations_batch_idx" ON "exam_annotations" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "exam_mark_history_pair_idx" ON "exam_mark_history" USING btree ("submission_id","question_id","changed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "exam_review_requests_open_key" ON "exam_review_requests" USING btree ("submission_id","question_id") WHERE "exam_review_requests"."status" = 'open';--> statement-breakpoint
CREATE INDEX "exam_review_requests_batch_idx" ON "exam_review_requests" USING btree ("batch_id","status");--> statement-breakpoint
CREATE INDEX "exam_review_requests_student_idx" ON "exam_review_requests" USING btree ("student_id");--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_released_by_users_id_fk" FOREIGN KEY ("released_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_release_scope_known" CHECK ("exam_batches"."release_scope" is null or "exam_batches"."release_scope" in ('all', 'complete'));--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_release_whole" CHECK (("exam_batches"."released_at" is null) = ("exam_batches"."release_scope" is null));--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_reviews_only_released" CHECK ("exam_batches"."reviews_until" is null or "exam_batches"."released_at" is not null);--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_released_has_student" CHECK ("exam_submissions"."released_at" is null or "exam_submissions"."student_id" is not null);