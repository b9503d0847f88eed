"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SignOutIcon } from "@/components/ui/icons";

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="secondary"
      size="small"
      loading={busy}
      loadingLabel="Signing out…"
      onClick={async () => {
        setBusy(true);
        try {
          await signOut({ callbackUrl: "/signin" });
        } catch {
          setBusy(false);
        }
      }}
    >
      <SignOutIcon size={16} />
      Sign out
    </Button>
  );
}
