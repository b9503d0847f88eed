"use client";

import { useEffect } from "react";
import { Button } from "@/components/ui/Button";
import { Status } from "@/components/ui/Status";

/** A page of the signed-in area failed: the navigation stays, the page says so. */
export default function SignedInError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div className="page">
      <header className="page__header">
        <h1>Something went wrong</h1>
      </header>
      <Status
        tone="error"
        title="This page could not be shown."
        action={
          <Button variant="secondary" size="small" onClick={reset}>
            Try again
          </Button>
        }
      >
        <p>
          If it keeps happening, tell your school&apos;s Markbook admin
          {error.digest ? (
            <>
              {" "}
              and quote the reference <code>{error.digest}</code>
            </>
          ) : null}
          .
        </p>
      </Status>
    </div>
  );
}
