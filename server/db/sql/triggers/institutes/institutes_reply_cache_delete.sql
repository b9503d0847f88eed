-- Reply cache versions (server/classroom/reply-cache.ts): a delete on institutes bumps the versions of what
-- it changes (app.reply_cache_institutes_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER institutes_reply_cache_delete AFTER DELETE ON institutes REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_institutes_changed();
