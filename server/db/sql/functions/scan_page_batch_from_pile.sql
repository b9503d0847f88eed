-- Trigger of exam_scan_pages: a page's batch is its pile's, never taken from a client.

CREATE OR REPLACE FUNCTION app.scan_page_batch_from_pile() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    SELECT batch_id INTO NEW.batch_id FROM exam_scan_piles WHERE id = NEW.pile_id;
    RETURN NEW;
  END
  $$;
