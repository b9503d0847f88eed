import type { ReactNode } from "react";
import { Wordmark } from "@/components/ui/Wordmark";
import { landingPath, schoolRoles } from "@/components/shell/school-roles";
import { AppNav } from "./AppNav";
import { roleNames, schoolName, type ShellProfile } from "./profile";
import { SignOutButton } from "./SignOutButton";

/** The signed-in frame: navigation (a sidebar, a top bar on tablets), the account, and the main landmark. */
export function AppShell({ profile, children }: { profile: ShellProfile; children: ReactNode }) {
  const school = schoolName(profile);
  const roles = roleNames(profile);
  const { isStaff, isSchoolAdmin, isStudent } = schoolRoles(profile);
  return (
    <div className="shell">
      <header className="sidebar">
        <div className="sidebar__brand">
          <Wordmark href={landingPath(profile)} />
        </div>
        <AppNav isStaff={isStaff} isSchoolAdmin={isSchoolAdmin} isStudent={isStudent} />
        <div className="sidebar__account">
          <p className="account">
            <span className="visually-hidden">Signed in as </span>
            <span className="account__name">{profile.full_name}</span>
            <span className="account__meta">{roles.join(", ") || "No role yet"}</span>
            {school ? <span className="account__meta">{school}</span> : null}
          </p>
          <SignOutButton />
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
