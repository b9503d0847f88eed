ALTER TABLE "exam_batches" ADD COLUMN "anonymous" boolean DEFAULT false NOT NULL;--> statement-breakpoint
COMMENT ON COLUMN exam_batches.anonymous IS 'Anonymous marking: reads of the batch name each script by its number (Script 17), never its student; only the owner reveals names (server/exam/anonymity.ts)';

