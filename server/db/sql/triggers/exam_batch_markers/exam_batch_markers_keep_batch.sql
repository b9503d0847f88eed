-- Keeps exam_batches.has_markers as markers are invited and removed (app.keep_batch_has_markers).

CREATE TRIGGER exam_batch_markers_keep_batch AFTER INSERT OR DELETE ON exam_batch_markers
  FOR EACH ROW EXECUTE FUNCTION app.keep_batch_has_markers();
