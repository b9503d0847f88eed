-- Staff of a school read its batches; students read none.

CREATE POLICY exam_batches_read ON exam_batches FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()));
