import type { Metadata } from "next";
import { PeopleList } from "@/components/people/PeopleList";
import { PageHeader } from "@/components/shell/PageHeader";
import { schoolRoles } from "@/components/shell/school-roles";
import { EmptyState } from "@/components/ui/EmptyState";
import { UsersIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "People" };

export default async function PeoplePage() {
  const profile = await requireSignedInProfile("/people");
  return (
    <div className="page">
      <PageHeader title="People">The teachers, staff and students of your school: add them, give them a password, change their role.</PageHeader>
      {schoolRoles(profile).isSchoolAdmin ? (
        <PeopleList />
      ) : (
        <EmptyState icon={<UsersIcon size={28} />} title="Only school admins manage people">
          <p>Ask your school’s Markbook admin to add someone or to reset a password.</p>
        </EmptyState>
      )}
    </div>
  );
}
