import type { Metadata } from "next";
import { PersonDetail } from "@/components/people/PersonDetail";
import { schoolRoles } from "@/components/shell/school-roles";
import { EmptyState } from "@/components/ui/EmptyState";
import { UsersIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Person" };

export default async function PersonPage({ params }: { params: Promise<{ userId: string }> }) {
  const { userId } = await params;
  const profile = await requireSignedInProfile(`/people/${userId}`);
  if (!schoolRoles(profile).isSchoolAdmin) {
    return (
      <div className="page">
        <EmptyState icon={<UsersIcon size={28} />} title="Only school admins manage people">
          <p>Ask your school’s Markbook admin to change someone’s details or password.</p>
        </EmptyState>
      </div>
    );
  }
  return <PersonDetail userId={userId} isSelf={userId.toLowerCase() === profile.id} />;
}
