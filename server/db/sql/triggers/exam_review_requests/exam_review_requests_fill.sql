-- A review request is filled in from its script (app.fill_review_request).

CREATE TRIGGER exam_review_requests_fill BEFORE INSERT ON exam_review_requests
  FOR EACH ROW EXECUTE FUNCTION app.fill_review_request();
