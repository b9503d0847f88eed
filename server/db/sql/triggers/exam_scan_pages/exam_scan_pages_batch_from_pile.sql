-- A page's batch is its pile's, never a client's (app.scan_page_batch_from_pile).

CREATE TRIGGER exam_scan_pages_batch_from_pile BEFORE INSERT OR UPDATE OF pile_id, batch_id ON exam_scan_pages
  FOR EACH ROW EXECUTE FUNCTION app.scan_page_batch_from_pile();
