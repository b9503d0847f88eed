import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeCallbackPath } from "@/components/auth/safe-callback";
import { SignInForm } from "@/components/auth/SignInForm";
import { requestOrigin } from "@/components/request-origin";
import { Wordmark } from "@/components/ui/Wordmark";
import { getSessionUserId } from "@/server/auth/session";
import { demoLoginsIfSeeded } from "./demo-logins";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

interface SignInPageProps {
  searchParams: Promise<{ callbackUrl?: string | string[] }>;
}

export default async function SignInPage({ searchParams }: SignInPageProps) {
  const callbackPath = safeCallbackPath((await searchParams).callbackUrl, await requestOrigin());
  if (await getSessionUserId()) redirect(callbackPath);
  const demo = demoLoginsIfSeeded();

  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-page__inner">
        <SignInForm
          callbackPath={callbackPath}
          demo={demo}
          header={
            <div className="auth-card__header">
              <Wordmark />
              <h1>Sign in</h1>
              <p>Use the email or username and the password your school gave you.</p>
            </div>
          }
        />
      </div>
    </main>
  );
}
