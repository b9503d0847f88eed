CREATE INDEX "exam_submissions_scan_file_idx" ON "exam_submissions" USING btree ("scan_file_id") WHERE "exam_submissions"."scan_file_id" is not null;--> statement-breakpoint
CREATE INDEX "exam_scan_pages_file_idx" ON "exam_scan_pages" USING btree ("file_id");--> statement-breakpoint
CREATE INDEX "exam_scan_piles_file_idx" ON "exam_scan_piles" USING btree ("file_id");