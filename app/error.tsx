"use client";

import Link from "next/link";
import { useEffect } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";

/** Shown when a page fails to render. The details stay in the server log; the digest links the two. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-page__inner">
        <div className="card auth-card">
          <div className="auth-card__header">
            <h1>Something went wrong</h1>
            <p>This page could not be shown. Try again; if it keeps happening, tell your school&apos;s Markbook admin.</p>
            {error.digest ? (
              <p className="muted">
                Reference: <code>{error.digest}</code>
              </p>
            ) : null}
          </div>
          <div className="cluster">
            <Button onClick={reset}>Try again</Button>
            <Link href="/" className={buttonClassName({ variant: "secondary" })}>
              Go to Markbook
            </Link>
          </div>
        </div>
      </div>
    </main>
  );
}
