-- What markbook_app, the role of every user-facing query, may attempt at all; the policies in
-- policies/<table>/ then decide which rows. A table that is not named here is closed to it: the
-- migration bookkeeping, graph_nodes and graph_edges (only the graph port reads and writes them, as the
-- service), reply_cache_versions and its sequence, speech_rate_windows and sign_in_failures (only their
-- SECURITY DEFINER functions read and write them). Who may execute each function is in its own file.

GRANT USAGE ON SCHEMA app TO markbook_app;
GRANT USAGE ON SCHEMA public TO markbook_app;

-- People and schools. A user's own row: display name and password; the rest of a user's columns are
-- an admin's to set (users_admin_* policies, and app.guard_own_user_update for the user's own row).
-- drizzle names every column in an insert (DEFAULT for those not given), so the insert grant names
-- every column a new user may have; personal_node_at is set by a background job only.
GRANT SELECT ON institutes TO markbook_app;
GRANT SELECT ON users TO markbook_app;
GRANT INSERT (id, email, password_hash, user_type, username, full_name, display_name, user_db_name, school_id, created_at,
  deactivated_at, year_group, sis_id, must_change_password, password_changed_at, personal_node_at) ON users TO markbook_app;
GRANT UPDATE (email, password_hash, user_type, full_name, display_name, deactivated_at, year_group, sis_id,
  must_change_password, password_changed_at) ON users TO markbook_app;
GRANT SELECT, INSERT, DELETE ON institute_memberships TO markbook_app;

-- Classes, timetables and rosters.
GRANT SELECT, INSERT, UPDATE, DELETE ON classes, enrollments, class_teachers, timetables, timetable_entries, roster_mappings TO markbook_app;

-- Keys and tokens. Revoking is the only change the app makes to a speech API key (last_used_at is
-- written by the service).
GRANT SELECT, INSERT ON api_keys TO markbook_app;
GRANT UPDATE (revoked_at) ON api_keys TO markbook_app;
GRANT SELECT, INSERT, UPDATE ON personal_access_tokens TO markbook_app;

-- Background jobs: a user reads the jobs queued for them and queues jobs only through app.enqueue_job.
GRANT SELECT ON background_jobs TO markbook_app;

-- The exam catalogue, files and templates.
GRANT SELECT ON exam_papers TO markbook_app;
GRANT SELECT, INSERT ON files TO markbook_app;
GRANT SELECT, INSERT, UPDATE ON exam_templates TO markbook_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_questions, exam_response_areas, exam_question_boundaries, exam_rubric_items TO markbook_app;
GRANT SELECT, INSERT ON exam_rubric_edits TO markbook_app;
GRANT SELECT, INSERT, DELETE ON exam_saved_comments TO markbook_app;

-- Batches, scripts and marks. A submission is deleted only when it has no student (an unmatched scan,
-- once assigned); a mark is never deleted by the app. Re-scores are written by
-- app.rescore_rubric_marks only.
GRANT SELECT, INSERT, UPDATE ON exam_batches, exam_mark_entries TO markbook_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_submissions TO markbook_app;
GRANT SELECT ON exam_mark_rescores TO markbook_app;
GRANT SELECT, INSERT, UPDATE ON exam_printed_scripts, exam_scan_piles, exam_scan_pages TO markbook_app;

-- Shared marking and moderation.
GRANT SELECT, INSERT, DELETE ON exam_batch_markers, exam_allocations TO markbook_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_mark_claims TO markbook_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_moderation_samples, exam_moderation_scripts TO markbook_app;
GRANT SELECT, INSERT, UPDATE ON exam_second_marks, exam_reconciliations, exam_batch_sign_offs TO markbook_app;

-- Marked work back to students: annotations are written and removed by the batch's writers, review
-- requests made by students and answered by writers (never deleted), the mark history written only by
-- app.keep_mark_history.
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_annotations TO markbook_app;
GRANT SELECT, INSERT, UPDATE ON exam_review_requests TO markbook_app;
GRANT SELECT ON exam_mark_history TO markbook_app;

-- Answers read from the scan: written by the service (the reading job); the batch's writers only mark an
-- automatic mark undone.
GRANT SELECT ON exam_answer_readings TO markbook_app;
GRANT UPDATE (automatic_mark_undone) ON exam_answer_readings TO markbook_app;
