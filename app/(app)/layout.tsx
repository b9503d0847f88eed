import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/AppShell";
import { TRPCReactProvider } from "@/lib/trpc/client";
import { requireSignedInProfile } from "./signed-in";

export const dynamic = "force-dynamic";

/** The signed-in area: signed-out visitors go to /signin. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const profile = await requireSignedInProfile();
  return (
    <TRPCReactProvider>
      <AppShell profile={profile}>{children}</AppShell>
    </TRPCReactProvider>
  );
}
