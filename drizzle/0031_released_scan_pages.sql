-- Written by hand: where each page of a released script's scan belongs, for its student (issue 35,
-- item 3). A script filed from a pile with a page missing is its filed pages in order (1, 3, 4): the
-- student's page places the marks of paper page 3 on the scan's second page, as the marking screen does.
-- exam_scan_pages stays closed to students (it holds the whole pile's pages); this answers only the page
-- numbers, only of a script released to the caller (else null, as for a scan uploaded on its own).
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
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.my_released_scan_page_numbers(uuid) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_released_scan_page_numbers(uuid) TO markbook_app;
