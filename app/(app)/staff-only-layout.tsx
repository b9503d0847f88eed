import type { ReactNode } from "react";
import { StaffOnly } from "@/components/shell/StaffOnly";
import { signedInProfileOrNull } from "./signed-in";

/** The layout of a staff area (templates, batches, classes): StaffOnly says so to anyone else. */
export function staffOnlyLayout(title: string) {
  return async function StaffOnlyLayout({ children }: { children: ReactNode }) {
    const profile = await signedInProfileOrNull();
    // Signed out: the page redirects to sign-in, and back here after.
    if (!profile) return children;
    return (
      <StaffOnly profile={profile} title={title}>
        {children}
      </StaffOnly>
    );
  };
}
