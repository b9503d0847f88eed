-- Reply cache versions (server/classroom/reply-cache.ts): an update on graph_nodes bumps the versions of what
-- it changes (app.reply_cache_graph_rows_changed), once per statement however many rows it writes (a transition
-- table needs a trigger per event).

CREATE TRIGGER graph_nodes_reply_cache_update AFTER UPDATE ON graph_nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION app.reply_cache_graph_rows_changed();
