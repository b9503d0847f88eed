CREATE TABLE "class_teachers" (
	"class_id" uuid NOT NULL,
	"teacher_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "class_teachers_class_id_teacher_id_pk" PRIMARY KEY("class_id","teacher_id")
);
--> statement-breakpoint
CREATE TABLE "roster_mappings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"institute_id" uuid NOT NULL,
	"header_key" text NOT NULL,
	"columns" text[] NOT NULL,
	"mapping" jsonb NOT NULL,
	"saved_by" uuid,
	"saved_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roster_mappings_institute_header_key" UNIQUE("institute_id","header_key")
);
--> statement-breakpoint
ALTER TABLE "class_teachers" ADD CONSTRAINT "class_teachers_class_id_classes_id_fk" FOREIGN KEY ("class_id") REFERENCES "public"."classes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "class_teachers" ADD CONSTRAINT "class_teachers_teacher_id_users_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roster_mappings" ADD CONSTRAINT "roster_mappings_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roster_mappings" ADD CONSTRAINT "roster_mappings_saved_by_users_id_fk" FOREIGN KEY ("saved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "class_teachers_teacher_idx" ON "class_teachers" USING btree ("teacher_id");--> statement-breakpoint

-- Written by hand: a class's other teachers are read by the members of its school and written by its
-- school admins, and only staff of the class's school can be one (the database says no even if a domain
-- function forgot to); a remembered CSV mapping is read and written by the school's admins only.
GRANT SELECT, INSERT, UPDATE, DELETE ON class_teachers, roster_mappings TO markbook_app;--> statement-breakpoint
ALTER TABLE class_teachers ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE roster_mappings ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY class_teachers_read ON class_teachers FOR SELECT TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_institute_ids())));--> statement-breakpoint
CREATE POLICY class_teachers_admin_write ON class_teachers FOR ALL TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())))
  WITH CHECK (
    class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids()))
    AND EXISTS (
      SELECT 1 FROM classes c JOIN institute_memberships m ON m.institute_id = c.institute_id
      WHERE c.id = class_teachers.class_id AND m.user_id = class_teachers.teacher_id AND m.role <> 'student'
    )
  );--> statement-breakpoint
CREATE POLICY roster_mappings_admin ON roster_mappings FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint

-- A class's teachers are part of the cached class list: they bump their class's institute, as enrollments do.
CREATE TRIGGER class_teachers_reply_cache_insert AFTER INSERT ON class_teachers REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_enrollments_changed();--> statement-breakpoint
CREATE TRIGGER class_teachers_reply_cache_update AFTER UPDATE ON class_teachers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_enrollments_changed();--> statement-breakpoint
CREATE TRIGGER class_teachers_reply_cache_delete AFTER DELETE ON class_teachers REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_enrollments_changed();
