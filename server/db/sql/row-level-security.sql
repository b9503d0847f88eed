-- The tables under row-level security. A table here is read and written by markbook_app (the role of
-- every user-facing query, with the caller in app.user_id) only through its policies, in
-- policies/<table>/; without a policy that allows it, a row is neither seen nor written. The owner
-- (migrations, seeding, background jobs and the named service-level reads) is not subject to them.
--
-- Tables here without any policy are closed to markbook_app on purpose: graph_nodes and graph_edges
-- (only the graph port reads and writes them, as the service), reply_cache_versions, speech_rate_windows
-- and sign_in_failures (only their SECURITY DEFINER functions in functions/ read and write them).
-- Row-level security is switched on for them in case a grant or a policy is ever added by mistake.

ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE background_jobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE class_teachers ENABLE ROW LEVEL SECURITY;
ALTER TABLE classes ENABLE ROW LEVEL SECURITY;
ALTER TABLE enrollments ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_allocations ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_answer_readings ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_annotations ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_batch_markers ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_batch_sign_offs ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_batches ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_mark_claims ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_mark_entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_mark_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_mark_rescores ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_moderation_samples ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_moderation_scripts ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_papers ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_printed_scripts ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_question_boundaries ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_questions ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_reconciliations ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_response_areas ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_review_requests ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_rubric_edits ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_rubric_items ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_saved_comments ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_scan_pages ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_scan_piles ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_second_marks ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_submissions ENABLE ROW LEVEL SECURITY;
ALTER TABLE exam_templates ENABLE ROW LEVEL SECURITY;
ALTER TABLE files ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_edges ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_nodes ENABLE ROW LEVEL SECURITY;
ALTER TABLE institute_memberships ENABLE ROW LEVEL SECURITY;
ALTER TABLE institutes ENABLE ROW LEVEL SECURITY;
ALTER TABLE personal_access_tokens ENABLE ROW LEVEL SECURITY;
ALTER TABLE reply_cache_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE roster_mappings ENABLE ROW LEVEL SECURITY;
ALTER TABLE sign_in_failures ENABLE ROW LEVEL SECURITY;
ALTER TABLE speech_rate_windows ENABLE ROW LEVEL SECURITY;
ALTER TABLE timetable_entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE timetables ENABLE ROW LEVEL SECURITY;
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
