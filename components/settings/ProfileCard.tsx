import { Card } from "@/components/ui/Card";
import { roleNames, schoolName, type ShellProfile } from "@/components/shell/profile";

export function ProfileCard({ profile }: { profile: ShellProfile & { username: string } }) {
  const roles = roleNames(profile);
  return (
    <Card id="profile" title="Profile" description="Your school manages these details. Ask a school admin to change them.">
      <dl className="details">
        <dt>Name</dt>
        <dd>{profile.full_name}</dd>
        <dt>Email</dt>
        <dd>{profile.email}</dd>
        <dt>Username</dt>
        <dd>{profile.username}</dd>
        <dt>School</dt>
        <dd>{schoolName(profile) ?? "Not a member of a school yet"}</dd>
        <dt>{roles.length === 1 ? "Role" : "Roles"}</dt>
        <dd>{roles.join(", ") || "None yet"}</dd>
      </dl>
    </Card>
  );
}
