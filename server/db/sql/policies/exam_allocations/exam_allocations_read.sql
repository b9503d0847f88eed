-- Staff who see a batch read its allocations (shared marking: which marker marks what).

CREATE POLICY exam_allocations_read ON exam_allocations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
