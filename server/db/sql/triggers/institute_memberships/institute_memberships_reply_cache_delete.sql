-- Reply cache versions (server/classroom/reply-cache.ts): a delete on institute_memberships bumps the versions of what
-- it changes (app.reply_cache_institute_rows_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER institute_memberships_reply_cache_delete AFTER DELETE ON institute_memberships REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_institute_rows_changed();
