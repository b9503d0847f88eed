-- Whether a person is active staff (admin, head of department, teacher) of the batch's school: who may be
-- invited to mark it (the policy exam_batch_markers_owner_insert). SECURITY DEFINER: the owner may not
-- read every membership of the school.

CREATE OR REPLACE FUNCTION app.is_active_staff_of_batch_school(p_user uuid, p_batch uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN EXISTS (
      SELECT 1 FROM exam_batches b
        JOIN institute_memberships m ON m.institute_id = b.institute_id
        JOIN users u ON u.id = m.user_id
      WHERE b.id = p_batch AND m.user_id = p_user AND u.deactivated_at IS NULL
        AND m.role IN ('school_admin', 'department_head', 'teacher')
        AND b.institute_id IN (SELECT app.my_staff_institute_ids())
    );
  END
  $$;
REVOKE ALL ON FUNCTION app.is_active_staff_of_batch_school(uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.is_active_staff_of_batch_school(uuid, uuid) TO markbook_app;
