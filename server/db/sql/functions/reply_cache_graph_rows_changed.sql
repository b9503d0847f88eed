-- Reply cache trigger of graph_nodes and graph_edges (the embedded graph store), by graph database.

CREATE OR REPLACE FUNCTION app.reply_cache_graph_rows_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'graph:' || db_name FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'graph:' || db_name FROM old_rows));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'graph:' || db_name FROM old_rows UNION SELECT 'graph:' || db_name FROM new_rows));
    END IF;
    RETURN NULL;
  END
  $$;
