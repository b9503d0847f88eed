-- Marks are read far more often than anything else (every upsert returns its row, and the status of a
-- submission counts its marks). The first read policy checked the mark's submission, which made every
-- statement collect all submissions visible to the caller. The mark carries its batch: staff see the
-- marks of the batches they see; a student sees the marks of their own submissions (an index lookup).
-- Who sees what is unchanged.
DROP POLICY IF EXISTS exam_mark_entries_read ON exam_mark_entries;--> statement-breakpoint
CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (
    batch_id IN (SELECT id FROM exam_batches)
    OR submission_id IN (SELECT id FROM exam_submissions WHERE student_id = app.current_user_id())
  );
--> statement-breakpoint

-- The scope functions in PL/pgSQL: a SQL function that is not inlined (a SECURITY DEFINER one never is)
-- is planned again at every call, and the policies call these several times per statement. PL/pgSQL
-- keeps its plans for the session: measured 4–5× cheaper per call (about 15 µs instead of 60–80 µs).
-- Same names, signatures and results as in 0001.
CREATE OR REPLACE FUNCTION app.institute_ids_with_roles(roles membership_role[]) RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY SELECT DISTINCT institute_id FROM institute_memberships
      WHERE user_id = app.current_user_id() AND role = ANY (roles);
  END
  $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles(enum_range(NULL::membership_role)); END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_staff_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles('{school_admin,department_head,teacher}'); END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_admin_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles('{school_admin}'); END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_timetable_manager_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles('{school_admin,department_head}'); END $$;
