import type { Metadata } from "next";
import { ApiKeys } from "@/components/settings/ApiKeys";
import { PersonalAccessTokens } from "@/components/settings/PersonalAccessTokens";
import { ProfileCard } from "@/components/settings/ProfileCard";
import { SpeechService } from "@/components/settings/SpeechService";
import { requestOrigin } from "@/components/request-origin";
import { PageHeader } from "@/components/shell/PageHeader";
import { schoolRoles } from "@/components/shell/school-roles";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const profile = await requireSignedInProfile("/settings");
  return (
    <div className="page">
      <PageHeader title="Settings">Your profile, and tokens that let other tools act as you.</PageHeader>
      <ProfileCard profile={profile} />
      <PersonalAccessTokens origin={await requestOrigin()} />
      {/* Speech API keys belong to the school: only its admins see them (the server refuses others). */}
      {schoolRoles(profile).isSchoolAdmin ? <SpeechService /> : null}
      {schoolRoles(profile).isSchoolAdmin && profile.school_id ? <ApiKeys origin={await requestOrigin()} instituteId={profile.school_id} /> : null}
    </div>
  );
}
