-- Reply cache versions (server/classroom/reply-cache.ts): an insert on institute_memberships bumps the versions of what
-- it changes (app.reply_cache_institute_rows_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER institute_memberships_reply_cache_insert AFTER INSERT ON institute_memberships REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_institute_rows_changed();
