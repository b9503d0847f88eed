CREATE TYPE "public"."scan_page_placement" AS ENUM('reading', 'filed', 'duplicate', 'refused');--> statement-breakpoint
CREATE TYPE "public"."scan_pile_status" AS ENUM('queued', 'reading', 'filing', 'done', 'failed');--> statement-breakpoint
ALTER TYPE "public"."matching_method" ADD VALUE 'qr';--> statement-breakpoint
CREATE TABLE "exam_printed_scripts" (
	"batch_id" uuid NOT NULL,
	"script_number" integer NOT NULL,
	"submission_id" uuid,
	"printed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_printed_scripts_pkey" PRIMARY KEY("batch_id","script_number"),
	CONSTRAINT "exam_printed_scripts_number_range" CHECK ("exam_printed_scripts"."script_number" between 1 and 9999)
);
--> statement-breakpoint
CREATE TABLE "exam_scan_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pile_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"pile_page" integer NOT NULL,
	"file_id" uuid NOT NULL,
	"code" text,
	"script_number" integer,
	"printed_page" integer,
	"rotation" integer DEFAULT 0 NOT NULL,
	"placement" "scan_page_placement" NOT NULL,
	"submission_id" uuid,
	"page_number" integer,
	"duplicate_of" uuid,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exam_scan_pages_one_place" CHECK (("exam_scan_pages"."placement" = 'filed') = ("exam_scan_pages"."submission_id" is not null and "exam_scan_pages"."page_number" is not null)),
	CONSTRAINT "exam_scan_pages_rotation_quarter" CHECK ("exam_scan_pages"."rotation" in (0, 90, 180, 270)),
	CONSTRAINT "exam_scan_pages_positions_positive" CHECK ("exam_scan_pages"."pile_page" >= 1 and ("exam_scan_pages"."page_number" is null or "exam_scan_pages"."page_number" >= 1))
);
--> statement-breakpoint
CREATE TABLE "exam_scan_piles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"batch_id" uuid NOT NULL,
	"file_id" uuid NOT NULL,
	"uploaded_by" uuid,
	"original_name" text,
	"byte_size" bigint NOT NULL,
	"page_count" integer,
	"pages_read" integer DEFAULT 0 NOT NULL,
	"status" "scan_pile_status" DEFAULT 'queued' NOT NULL,
	"failure" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "exam_scan_piles_pages_read_range" CHECK ("exam_scan_piles"."pages_read" >= 0 and ("exam_scan_piles"."page_count" is null or "exam_scan_piles"."pages_read" <= "exam_scan_piles"."page_count"))
);
--> statement-breakpoint
ALTER TABLE "exam_batches" ADD COLUMN "print_code" text;--> statement-breakpoint
ALTER TABLE "exam_templates" ADD COLUMN "name_box" jsonb;--> statement-breakpoint
ALTER TABLE "exam_printed_scripts" ADD CONSTRAINT "exam_printed_scripts_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_printed_scripts" ADD CONSTRAINT "exam_printed_scripts_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_pages" ADD CONSTRAINT "exam_scan_pages_pile_id_exam_scan_piles_id_fk" FOREIGN KEY ("pile_id") REFERENCES "public"."exam_scan_piles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_pages" ADD CONSTRAINT "exam_scan_pages_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_pages" ADD CONSTRAINT "exam_scan_pages_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_pages" ADD CONSTRAINT "exam_scan_pages_submission_id_exam_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."exam_submissions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_piles" ADD CONSTRAINT "exam_scan_piles_batch_id_exam_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."exam_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_piles" ADD CONSTRAINT "exam_scan_piles_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exam_scan_piles" ADD CONSTRAINT "exam_scan_piles_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "exam_printed_scripts_submission_key" ON "exam_printed_scripts" USING btree ("submission_id") WHERE "exam_printed_scripts"."submission_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "exam_scan_pages_pile_page_key" ON "exam_scan_pages" USING btree ("pile_id","pile_page");--> statement-breakpoint
CREATE INDEX "exam_scan_pages_batch_idx" ON "exam_scan_pages" USING btree ("batch_id","placement");--> statement-breakpoint
CREATE INDEX "exam_scan_piles_batch_idx" ON "exam_scan_piles" USING btree ("batch_id","created_at");--> statement-breakpoint
ALTER TABLE "exam_batches" ADD CONSTRAINT "exam_batches_print_code_key" UNIQUE("print_code");--> statement-breakpoint
-- The lines above are from drizzle-kit generate (server/db/schema); what follows is written by hand.

-- One page per position of a submission, checked at commit: moving or identifying pages renumbers a
-- submission inside one transaction, and a position is briefly held twice while it does.
ALTER TABLE exam_scan_pages ADD CONSTRAINT exam_scan_pages_submission_page_key
  UNIQUE (submission_id, page_number) DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
CREATE INDEX exam_scan_pages_submission_idx ON exam_scan_pages (submission_id) WHERE submission_id IS NOT NULL;--> statement-breakpoint

-- Row-level security, as for submissions (0001): the school's staff read what belongs to a batch they
-- can see (exam_batches' own policy decides that); only the batch's owner writes. Reading piles and
-- filing their pages is a background job that runs as the service. Students see none of it: a
-- student reads their own submission and its assembled scan, never the pile.
GRANT SELECT, INSERT, UPDATE ON exam_printed_scripts, exam_scan_piles, exam_scan_pages TO markbook_app;--> statement-breakpoint
ALTER TABLE exam_printed_scripts ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_scan_piles ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_scan_pages ENABLE ROW LEVEL SECURITY;--> statement-breakpoint

CREATE POLICY exam_printed_scripts_read ON exam_printed_scripts FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_printed_scripts_owner_insert ON exam_printed_scripts FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_printed_scripts_owner_update ON exam_printed_scripts FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint

CREATE POLICY exam_scan_piles_read ON exam_scan_piles FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_scan_piles_owner_insert ON exam_scan_piles FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()) AND uploaded_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_scan_piles_owner_update ON exam_scan_piles FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint

CREATE POLICY exam_scan_pages_read ON exam_scan_pages FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_scan_pages_owner_insert ON exam_scan_pages FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_scan_pages_owner_update ON exam_scan_pages FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint

-- A page's batch is its pile's: never taken from a client.
CREATE FUNCTION app.scan_page_batch_from_pile() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    SELECT batch_id INTO NEW.batch_id FROM exam_scan_piles WHERE id = NEW.pile_id;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_scan_pages_batch_from_pile BEFORE INSERT OR UPDATE OF pile_id, batch_id ON exam_scan_pages
  FOR EACH ROW EXECUTE FUNCTION app.scan_page_batch_from_pile();--> statement-breakpoint
COMMENT ON TABLE exam_scan_pages IS 'Every page of every scanned pile, in exactly one place: filed in a submission, a duplicate, or refused';
