-- Keeps exam_batches.signed_off as a batch is signed off and reopened (app.keep_batch_signed_off).

CREATE TRIGGER exam_batch_sign_offs_keep_batch AFTER INSERT OR UPDATE OR DELETE ON exam_batch_sign_offs
  FOR EACH ROW EXECUTE FUNCTION app.keep_batch_signed_off();
