import type { Metadata } from "next";
import { RosterImport } from "@/components/roster-import/RosterImport";
import { PageHeader } from "@/components/shell/PageHeader";
import { schoolRoles } from "@/components/shell/school-roles";
import { Status } from "@/components/ui/Status";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Import people" };

export default async function ImportPeoplePage() {
  const profile = await requireSignedInProfile("/people/import");
  return (
    <div className="page">
      <PageHeader title="Import people">Create and update your school&apos;s people, classes and enrollments from your information system&apos;s export.</PageHeader>
      {schoolRoles(profile).isSchoolAdmin ? (
        <RosterImport />
      ) : (
        <Status tone="info" title="Only a school admin can import people">
          Ask your school&apos;s Markbook admin to import the class lists.
        </Status>
      )}
    </div>
  );
}
