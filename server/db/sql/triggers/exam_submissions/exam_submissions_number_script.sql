-- Every new script of a batch gets its number, or moves the batch's counter past a printed one
-- (app.number_new_script).

CREATE TRIGGER exam_submissions_number_script BEFORE INSERT ON exam_submissions
  FOR EACH ROW EXECUTE FUNCTION app.number_new_script();
