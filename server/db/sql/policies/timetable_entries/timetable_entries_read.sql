-- Whoever reads a timetable reads its entries.

CREATE POLICY timetable_entries_read ON timetable_entries FOR SELECT TO markbook_app
  USING (timetable_id IN (SELECT id FROM timetables));
