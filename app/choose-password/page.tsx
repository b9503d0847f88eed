import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ChoosePasswordForm } from "@/components/auth/ChoosePasswordForm";
import { SignOutButton } from "@/components/shell/SignOutButton";
import { Wordmark } from "@/components/ui/Wordmark";
import { TRPCReactProvider } from "@/components/trpc/client";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/passwords";
import { getSessionUser } from "@/server/auth/session";
import { getDatabase } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";

export const metadata: Metadata = { title: "Choose your password" };
export const dynamic = "force-dynamic";

/** Someone signed in with a temporary password chooses their own before they use the app. */
export default async function ChoosePasswordPage() {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  if (!user.mustChoosePassword) redirect("/");
  const { db } = await getDatabase();
  const profile = await createCaller({ db, user: { id: user.id } }).me.profile();

  return (
    <main id="main" className="auth-page" tabIndex={-1}>
      <div className="auth-page__inner">
        <div className="card auth-card">
          <div className="auth-card__header">
            <Wordmark />
            <h1>Choose your password</h1>
            <p>
              Welcome, {profile.display_name}. You signed in with a temporary password: choose one of your own to continue. You will use it
              with {profile.email} from now on.
            </p>
          </div>
          <TRPCReactProvider>
            <ChoosePasswordForm email={profile.email} minLength={MIN_PASSWORD_LENGTH} />
          </TRPCReactProvider>
          <div className="auth-card__footer">
            <SignOutButton />
          </div>
        </div>
      </div>
    </main>
  );
}
