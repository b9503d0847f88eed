-- Which paper page each page of a released script's scan is, for its student (null for a script not
-- released to the caller, or a scan uploaded on its own): exam_scan_pages stays closed to students.

CREATE OR REPLACE FUNCTION app.my_released_scan_page_numbers(p_submission uuid) RETURNS integer[]
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    pages integer[];
  BEGIN
    IF p_submission NOT IN (SELECT app.my_released_submission_ids()) THEN
      RETURN NULL;
    END IF;
    SELECT array_agg(p.page_number ORDER BY p.page_number) INTO pages
      FROM exam_scan_pages p WHERE p.submission_id = p_submission AND p.placement = 'filed';
    RETURN pages;
  END
  $$;
REVOKE ALL ON FUNCTION app.my_released_scan_page_numbers(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.my_released_scan_page_numbers(uuid) TO markbook_app;
