CREATE TYPE "public"."membership_role" AS ENUM('school_admin', 'department_head', 'teacher', 'student');--> statement-breakpoint
CREATE TYPE "public"."user_type" AS ENUM('student', 'teacher', 'staff', 'developer');--> statement-breakpoint
CREATE TYPE "public"."batch_status" AS ENUM('open', 'archived');--> statement-breakpoint
CREATE TYPE "public"."matching_method" AS ENUM('manual', 'ordered');--> statement-breakpoint
CREATE TYPE "public"."response_area_kind" AS ENUM('response', 'context');--> statement-breakpoint
CREATE TYPE "public"."submission_status" AS ENUM('absent', 'unmatched', 'matched', 'marking', 'complete');--> statement-breakpoint
CREATE TYPE "public"."template_status" AS ENUM('draft', 'ready', 'archived');--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash"),
	CONSTRAINT "api_keys_name_not_blank" CHECK (length(trim("api_keys"."name")) > 0)
);
--> statement-breakpoint
CREATE TABLE "institute_memberships" (
	"institute_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" "membership_role" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "institute_memberships_institute_id_user_id_role_pk" PRIMARY KEY("institute_id","user_id","role")
);
--> statement-breakpoint
CREATE TABLE "institutes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"graph_db_name" text NOT NULL,
	"curriculum_db_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "institutes_graph_db_name_unique" UNIQUE("graph_db_name"),
	CONSTRAINT "institutes_curriculum_db_name_unique" UNIQUE("curriculum_db_name")
);
--> statement-breakpoint
CREATE TABLE "personal_access_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "personal_access_tokens_name_not_blank" CHECK (length(trim("personal_access_tokens"."name")) > 0)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"user_type" "user_type" NOT NULL,
	"username" text NOT NULL,
	"full_name" text NOT NULL,
	"display_name" text NOT NULL,
	"user_db_name" text NOT NULL,
	"school_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_user_db_name_unique" UNIQUE("user_db_name"),
	CONSTRAINT "users_email_shape" CHECK ("users"."email" ~ '^[^@\s]+@[^@\s]+$')
);
--> statement-breakpoint
CREATE TABLE "classes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"institute_id" uuid NOT NULL,
	"name" text NOT NULL,
	"subject" text,
	"teacher_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "classes_institute_name_key" UNIQUE("institute_id","name"),
	CONSTRAINT "classes_name_not_blank" CHECK (length(trim("classes"."name")) > 0)
);
--> statement-breakpoint
CREATE TABLE "enrollments" (
	"class_id" uuid NOT NULL,
	"student_id" uuid NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "enrollments_class_id_student_id_pk" PRIMARY KEY("class_id","student_id")
);
--> statement-breakpoint
CREATE TABLE "timetable_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"timetable_id" uuid NOT NULL,
	"day" smallint NOT NULL,
	"period" integer NOT NULL,
	"start_time" time NOT NULL,
	"end_time" time NOT NULL,
	"room" text,
	"class_id" uuid,
	"teacher_id" uuid,
	CONSTRAINT "timetable_entries_teacher_slot_key" UNIQUE("timetable_id","day","period","teacher_id"),
	CONSTRAINT "timetable_entries_room_slot_key" UNIQUE("timetable_id","day","period","room"),
	CONSTRAINT "timetable_entries_day_range" CHECK ("timetable_entries"."day" between 1 and 7),
	CONSTRAINT "timetable_entries_period_positive" CHECK ("timetable_entries"."period" >= 1),
	CONSTRAINT "timetable_entries_end_after_start" CHECK ("timetable_entries"."end_time" > "timetable_entries"."start_time")
);
--> statement-breakpoint
CREATE TABLE "timetables" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"institute_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text DEFAULT 'school' NOT NULL,
	"class_id" uuid,
	"active" boolean DEFAULT false NOT NULL,
	"starts_on" date,
	"ends_on" date,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "timetables_type_known" CHECK ("timetables"."type" in ('school', 'class', 'teacher', 'exam')),
	CONSTRAINT "timetables_dates_ordered" CHECK ("timetables"."ends_on" is null or "timetables"."starts_on" is null or "timetables"."ends_on" >= "timetables"."starts_on")
);
--> statement-breakpoint
CREATE TABLE "exam_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"template_id" uuid NOT NULL,
	"class_id" uuid,
	"institute_id" uuid NOT NULL,
	"teacher_id" uuid NOT NULL,
	"title" text NOT NULL,
	"status" "batch_status" DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "exam_mark_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"awarded_marks" numeric(8, 2),
	"mark_scheme_detail" jsonb,
	"annotation_shape_ids" jsonb,
	"comment" text,
	"confirmed" boolean DEFAULT false NOT NULL,
	"marked_by" text DEFAULT 'teacher' NOT NULL,
	"marked_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_mark_entries_submission_question_key" UNIQUE("submission_id","question_id"),
	CONSTRAINT "exam_mark_entries_marked_by_known" CHECK ("exam_mark_entries"."marked_by" in ('teacher')),
	CONSTRAINT "exam_mark_entries_awarded_non_negative" CHECK ("exam_mark_entries"."awarded_marks" is null or "exam_mark_entries"."awarded_marks" >= 0)
);
--> statement-breakpoint
CREATE TABLE "exam_papers" (
	"id" text PRIMARY KEY NOT NULL,
	"exam_code" text NOT NULL,
	"title" text NOT NULL,
	"subject" text,
	"board" text,
	"specification" text,
	"source_file_id" uuid,
	"page_count" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_papers_exam_code_unique" UNIQUE("exam_code")
);
--> statement-breakpoint
CREATE TABLE "exam_question_boundaries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"template_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"page" integer NOT NULL,
	"top" double precision NOT NULL,
	"bottom" double precision NOT NULL,
	CONSTRAINT "exam_question_boundaries_page_positive" CHECK ("exam_question_boundaries"."page" >= 1),
	CONSTRAINT "exam_question_boundaries_inside_page" CHECK ("exam_question_boundaries"."top" >= 0 and "exam_question_boundaries"."bottom" <= 1 and "exam_question_boundaries"."top" < "exam_question_boundaries"."bottom")
);
--> statement-breakpoint
CREATE TABLE "exam_questions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"template_id" uuid NOT NULL,
	"parent_id" uuid,
	"label" text NOT NULL,
	"order" integer DEFAULT 0 NOT NULL,
	"max_marks" numeric(8, 2),
	"answer_type" text,
	"mark_scheme" jsonb,
	"spec_ref" text,
	"is_container" boolean DEFAULT false NOT NULL,
	CONSTRAINT "exam_questions_template_id_key" UNIQUE("template_id","id"),
	CONSTRAINT "exam_questions_not_own_parent" CHECK ("exam_questions"."parent_id" is null or "exam_questions"."parent_id" <> "exam_questions"."id"),
	CONSTRAINT "exam_questions_max_marks_non_negative" CHECK ("exam_questions"."max_marks" is null or "exam_questions"."max_marks" >= 0),
	CONSTRAINT "exam_questions_mark_scheme_typed" CHECK ("exam_questions"."mark_scheme" is null or jsonb_typeof("exam_questions"."mark_scheme" -> 'type') = 'string')
);
--> statement-breakpoint
CREATE TABLE "exam_response_areas" (
	"id" uuid PRIMARY KEY NOT NULL,
	"template_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"page" integer NOT NULL,
	"kind" "response_area_kind" DEFAULT 'response' NOT NULL,
	"response_form" text,
	"x" double precision NOT NULL,
	"y" double precision NOT NULL,
	"width" double precision NOT NULL,
	"height" double precision NOT NULL,
	CONSTRAINT "exam_response_areas_page_positive" CHECK ("exam_response_areas"."page" >= 1),
	CONSTRAINT "exam_response_areas_inside_page" CHECK ("exam_response_areas"."x" >= 0 and "exam_response_areas"."y" >= 0 and "exam_response_areas"."width" > 0 and "exam_response_areas"."height" > 0 and "exam_response_areas"."x" + "exam_response_areas"."width" <= 1 and "exam_response_areas"."y" + "exam_response_areas"."height" <= 1)
);
--> statement-breakpoint
CREATE TABLE "exam_submissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"student_id" uuid,
	"student_name" text,
	"status" "submission_status" DEFAULT 'absent' NOT NULL,
	"scan_url" text,
	"scan_file_id" uuid,
	"qr_code" text,
	"matching_method" "matching_method",
	"page_count" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exam_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"institute_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"title" text NOT NULL,
	"subject" text,
	"exam_id" text,
	"exam_code" text,
	"source_file_id" uuid,
	"page_count" integer,
	"status" "template_status" DEFAULT 'draft' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_templates_title_not_blank" CHECK (length(trim("exam_templates"."title")) > 0),
	CONSTRAINT "exam_templates_page_count_positive" CHECK ("exam_templates"."page_count" is null or "exam_templates"."page_count" >= 1)
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"institute_id" uuid,
	"owner_id" uuid,
	"bucket" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"original_name" text,
	"page_count" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "files_bucket_key_key" UNIQUE("bucket","storage_key"),
	CONSTRAINT "files_size_non_negative" CHECK ("files"."byte_size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "graph_edges" (
	"db_name" text NOT NULL,
	"from_id" text NOT NULL,
	"type" text NOT NULL,
	"to_id" text NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "graph_edges_db_name_from_id_type_to_id_pk" PRIMARY KEY("db_name","from_id","type","to_id")
);
--> statement-breakpoint
CREATE TABLE "graph_nodes" (
	"db_name" text NOT NULL,
	"id" text NOT NULL,
	"labels" text[] NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "graph_nodes_db_name_id_pk" PRIMARY KEY("db_name","id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "institute_memberships" ADD CONSTRAINT "institute_memberships_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "institute_memberships" ADD CONSTRAINT "institute_memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "personal_access_tokens" ADD CONSTRAINT "personal_access_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_school_id_institutes_id_fk" FOREIGN KEY ("school_id") REFERENCES "public"."institutes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "classes" ADD CONSTRAINT "classes_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "classes" ADD CONSTRAINT "classes_teacher_id_users_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_class_id_classes_id_fk" FOREIGN KEY ("class_id") REFERENCES "public"."classes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_student_id_users_id_fk" FOREIGN KEY ("student_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetable_entries" ADD CONSTRAINT "timetable_entries_timetable_id_timetables_id_fk" FOREIGN KEY ("timetable_id") REFERENCES "public"."timetables"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetable_entries" ADD CONSTRAINT "timetable_entries_class_id_classes_id_fk" FOREIGN KEY ("class_id") REFERENCES "public"."classes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetable_entries" ADD CONSTRAINT "timetable_entries_teacher_id_users_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetables" ADD CONSTRAINT "timetables_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetables" ADD CONSTRAINT "timetables_class_id_classes_id_fk" FOREIGN KEY ("class_id") REFERENCES "public"."classes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timetables" ADD CONSTRAINT "timetables_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_template_id_exam_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."exam_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_class_id_classes_id_fk" FOREIGN KEY ("class_id") REFERENCES "public"."classes"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_teacher_id_users_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_entries" ADD CONSTRAINT "exam_mark_entries_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_entries" ADD CONSTRAINT "exam_mark_entries_question_id_exam_questions_id_fk" FOREIGN KEY ("question_id") REFERENCES "public"."exam_questions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_entries" ADD CONSTRAINT "exam_mark_entries_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_mark_entries" ADD CONSTRAINT "exam_mark_entries_marked_by_user_id_users_id_fk" FOREIGN KEY ("marked_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_papers" ADD CONSTRAINT "exam_papers_source_file_id_files_id_fk" FOREIGN KEY ("source_file_id") REFERENCES "public"."files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_question_boundaries" ADD CONSTRAINT "exam_question_boundaries_template_id_exam_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."exam_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_question_boundaries" ADD CONSTRAINT "exam_question_boundaries_question_fk" FOREIGN KEY ("template_id","question_id") REFERENCES "public"."exam_questions"("template_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_questions" ADD CONSTRAINT "exam_questions_template_id_exam_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."exam_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_questions" ADD CONSTRAINT "exam_questions_parent_fk" FOREIGN KEY ("template_id","parent_id") REFERENCES "public"."exam_questions"("template_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_response_areas" ADD CONSTRAINT "exam_response_areas_template_id_exam_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."exam_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_response_areas" ADD CONSTRAINT "exam_response_areas_question_fk" FOREIGN KEY ("template_id","question_id") REFERENCES "public"."exam_questions"("template_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_student_id_users_id_fk" FOREIGN KEY ("student_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_submissions" ADD CONSTRAINT "exam_submissions_scan_file_id_files_id_fk" FOREIGN KEY ("scan_file_id") REFERENCES "public"."files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_templates" ADD CONSTRAINT "exam_templates_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_templates" ADD CONSTRAINT "exam_templates_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_templates" ADD CONSTRAINT "exam_templates_exam_id_exam_papers_id_fk" FOREIGN KEY ("exam_id") REFERENCES "public"."exam_papers"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_templates" ADD CONSTRAINT "exam_templates_source_file_id_files_id_fk" FOREIGN KEY ("source_file_id") REFERENCES "public"."files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "institute_memberships_user_idx" ON "institute_memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "personal_access_tokens_user_idx" ON "personal_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_lower_key" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_key" ON "users" USING btree ("username");--> statement-breakpoint
CREATE INDEX "enrollments_student_idx" ON "enrollments" USING btree ("student_id");--> statement-breakpoint
CREATE INDEX "timetable_entries_timetable_idx" ON "timetable_entries" USING btree ("timetable_id","day","period");--> statement-breakpoint
CREATE INDEX "timetables_institute_idx" ON "timetables" USING btree ("institute_id","created_at");--> statement-breakpoint
CREATE INDEX "exam_batches_institute_idx" ON "exam_batches" USING btree ("institute_id","created_at");--> statement-breakpoint
CREATE INDEX "exam_mark_entries_batch_idx" ON "exam_mark_entries" USING btree ("batch_id");--> statement-breakpoint
CREATE INDEX "exam_questions_template_idx" ON "exam_questions" USING btree ("template_id","order");--> statement-breakpoint
CREATE INDEX "exam_response_areas_template_idx" ON "exam_response_areas" USING btree ("template_id","page");--> statement-breakpoint
CREATE UNIQUE INDEX "exam_submissions_batch_student_key" ON "exam_submissions" USING btree ("batch_id","student_id") WHERE "exam_submissions"."student_id" is not null;--> statement-breakpoint
CREATE INDEX "exam_submissions_batch_idx" ON "exam_submissions" USING btree ("batch_id","created_at");--> statement-breakpoint
CREATE INDEX "exam_templates_institute_idx" ON "exam_templates" USING btree ("institute_id","status");--> statement-breakpoint
CREATE INDEX "graph_edges_to_idx" ON "graph_edges" USING btree ("db_name","to_id");--> statement-breakpoint
CREATE INDEX "graph_nodes_labels_idx" ON "graph_nodes" USING gin ("labels");