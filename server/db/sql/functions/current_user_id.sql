-- The caller: the user id that asUser (server/db/rls.ts) stores in the transaction-local setting
-- app.user_id, or NULL outside such a transaction. Every policy starts from it.
-- nullif: once set_config has run on a connection, an unset value reads as '' rather than NULL.

CREATE OR REPLACE FUNCTION app.current_user_id() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$;
GRANT EXECUTE ON FUNCTION app.current_user_id() TO markbook_app;
