"use client";

import { signIn } from "next-auth/react";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { TextField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { useHydrated } from "@/components/ui/use-hydrated";

export interface DemoLogin {
  email: string;
  role: string;
}

export interface SignInFormProps {
  callbackPath: string;
  /** The card's heading block (wordmark, title, intro), rendered above the fields. */
  header: ReactNode;
  /** Demo accounts, given only when the server seeded the demo school. */
  demo?: { password: string; logins: DemoLogin[]; note?: string } | null;
}

type FormError = { kind: "credentials" | "throttled" | "unavailable" | "missing"; message: string; missing?: "email" | "password" | "both" };

/**
 * The fields are the browser's own, read when the form is sent: what someone types while the page is
 * still loading (a slow phone) is kept. The button waits for the page, so the form is never sent natively.
 */
export function SignInForm({ callbackPath, header, demo }: SignInFormProps) {
  const hydrated = useHydrated();
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<FormError | null>(null);
  const emailInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting) return;
    const email = emailInput.current?.value.trim() ?? "";
    const password = passwordInput.current?.value ?? "";
    if (!email || !password) {
      const missing = !email && !password ? "both" : email ? "password" : "email";
      setError({ kind: "missing", message: "Enter your email or username, and your password.", missing });
      (email ? passwordInput : emailInput).current?.focus();
      return;
    }
    setError(null);
    setSubmitting(true);
    try {
      const result = await signIn("credentials", { redirect: false, email, password });
      if (result?.ok && !result.error) {
        // A full navigation, so that the server renders the signed-in area with the new cookie.
        window.location.assign(callbackPath);
        return;
      }
      setError(
        result?.error === "CredentialsSignin"
          ? { kind: "credentials", message: "Email, username or password is incorrect." }
          : result?.status === 429 && result.error
            ? // Too many attempts: the server's sentence says when to try again.
              { kind: "throttled", message: result.error }
            : { kind: "unavailable", message: "Signing in is not possible right now. Try again in a moment." },
      );
    } catch {
      setError({ kind: "unavailable", message: "Could not reach Markbook. Check your connection and try again." });
    }
    setSubmitting(false);
    if (passwordInput.current) passwordInput.current.value = "";
    passwordInput.current?.focus();
  }

  function useDemoLogin(login: DemoLogin) {
    if (!demo) return;
    if (emailInput.current) emailInput.current.value = login.email;
    if (passwordInput.current) passwordInput.current.value = demo.password;
    setError(null);
    passwordInput.current?.focus();
  }

  const credentialsError = error?.kind === "credentials";

  return (
    <>
      <div className="card auth-card">
        {header}
        <form className="form-stack" onSubmit={(event) => void onSubmit(event)} noValidate aria-describedby={error ? "signin-error" : undefined}>
          {error ? (
            <Status tone="error" id="signin-error">
              {error.message}
            </Status>
          ) : null}
          <TextField
            ref={emailInput}
            label="Email or username"
            type="text"
            name="email"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            autoFocus
            aria-invalid={credentialsError || error?.missing === "email" || error?.missing === "both" || undefined}
          />
          <TextField
            ref={passwordInput}
            label="Password"
            type="password"
            name="password"
            autoComplete="current-password"
            required
            aria-invalid={credentialsError || error?.missing === "password" || error?.missing === "both" || undefined}
          />
          <Button type="submit" block disabled={!hydrated} loading={submitting} loadingLabel="Signing in…">
            Sign in
          </Button>
        </form>
        <p className="auth-card__footer">Forgot your password? Ask your school&apos;s Markbook admin to set a new one.</p>
      </div>
      {demo ? <DemoLogins demo={demo} onUse={useDemoLogin} /> : null}
    </>
  );
}

function DemoLogins({ demo, onUse }: { demo: NonNullable<SignInFormProps["demo"]>; onUse: (login: DemoLogin) => void }) {
  return (
    <aside className="demo-note" aria-labelledby="demo-heading">
      <h2 id="demo-heading">Demo school</h2>
      <p>
        This installation has the Northfield demo school. Every demo account uses the password{" "}
        <code>{demo.password}</code>.
      </p>
      <ul className="demo-note__list">
        {demo.logins.map((login) => (
          <li key={login.email}>
            <span>
              <code>{login.email}</code> <span className="demo-note__role">· {login.role}</span>
            </span>
            <button type="button" className="link-button" onClick={() => onUse(login)} aria-label={`Fill in ${login.email}`}>
              Use
            </button>
          </li>
        ))}
      </ul>
      {demo.note ? <p className="demo-note__extra">{demo.note}</p> : null}
    </aside>
  );
}
