import { headers } from "next/headers";
import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/AppShell";
import { DateLocaleProvider } from "@/components/ui/dates";
import { localeFromAcceptLanguage } from "@/lib/accept-language";
import { TRPCReactProvider } from "@/components/trpc/client";
import { requireSignedInProfile } from "./signed-in";

export const dynamic = "force-dynamic";

/** The signed-in area: signed-out visitors go to /signin. */
export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const profile = await requireSignedInProfile();
  const locale = localeFromAcceptLanguage((await headers()).get("accept-language"));
  return (
    <TRPCReactProvider>
      <DateLocaleProvider locale={locale}>
        <AppShell profile={profile}>{children}</AppShell>
      </DateLocaleProvider>
    </TRPCReactProvider>
  );
}
