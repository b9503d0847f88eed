-- Reply cache versions (server/classroom/reply-cache.ts): an update on users bumps the versions of what
-- it changes (app.reply_cache_users_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER users_reply_cache_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_users_changed();
