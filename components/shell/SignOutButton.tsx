"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SignOutIcon } from "@/components/ui/icons";

/**
 * next-auth's sign-out without its client library (43 kB on every page for this one call): the
 * CSRF token, then the POST that clears the session cookie, then /signin.
 */
async function signOut(callbackUrl: string) {
  const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await fetch("/api/auth/signout", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, callbackUrl, json: "true" }),
  });
  if (!response.ok) throw new Error(`sign-out failed (${response.status})`);
  window.location.assign(callbackUrl);
}

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="secondary"
      size="small"
      loading={busy}
      loadingLabel="Signing out…"
      onClick={() => {
        setBusy(true);
        // Signing out navigates away; a failure only gives the button back.
        signOut("/signin").catch(() => setBusy(false));
      }}
    >
      <SignOutIcon size={16} />
      Sign out
    </Button>
  );
}
