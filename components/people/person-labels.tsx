import { roleLabels } from "@/components/shell/profile";
import { Badge } from "@/components/ui/Badge";
import type { Role } from "@/lib/rules/roles";

export { roleLabels };

/** The role choices of the people forms, most senior last (a new person is most often a student). */
export const roleOptions: { value: Role; label: string }[] = (["student", "teacher", "department_head", "school_admin"] as const).map((role) => ({
  value: role,
  label: roleLabels[role],
}));

export interface PersonStatusFields {
  active: boolean;
  has_password: boolean;
  must_change_password: boolean;
}

/** Whether a person can sign in, as chips: "Active" or "Deactivated", and what is missing about their password. */
export function PersonStatus({ person }: { person: PersonStatusFields }) {
  return (
    <span className="person-status">
      {person.active ? <Badge tone="success">Active</Badge> : <Badge tone="danger">Deactivated</Badge>}
      {!person.has_password ? <Badge tone="neutral">No password yet</Badge> : null}
      {person.has_password && person.must_change_password ? <Badge tone="neutral">Must choose password</Badge> : null}
    </span>
  );
}
