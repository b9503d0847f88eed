-- Reply cache versions (server/classroom/reply-cache.ts): a delete on classes bumps the versions of what
-- it changes (app.reply_cache_institute_rows_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER classes_reply_cache_delete AFTER DELETE ON classes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_institute_rows_changed();
