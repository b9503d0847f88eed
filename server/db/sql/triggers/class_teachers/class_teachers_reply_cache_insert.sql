-- Reply cache versions (server/classroom/reply-cache.ts): an insert on class_teachers bumps the versions of what
-- it changes (app.reply_cache_enrollments_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER class_teachers_reply_cache_insert AFTER INSERT ON class_teachers REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_enrollments_changed();
