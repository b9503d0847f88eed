import type { Metadata } from "next";
import { PersonalAccessTokens } from "@/components/settings/PersonalAccessTokens";
import { ProfileCard } from "@/components/settings/ProfileCard";
import { requestOrigin } from "@/components/request-origin";
import { PageHeader } from "@/components/shell/PageHeader";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const profile = await requireSignedInProfile("/settings");
  return (
    <div className="page">
      <PageHeader title="Settings">Your profile, and tokens that let other tools act as you.</PageHeader>
      <ProfileCard profile={profile} />
      <PersonalAccessTokens origin={await requestOrigin()} />
    </div>
  );
}
