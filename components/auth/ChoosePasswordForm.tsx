"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/Button";
import { TextField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { useHydrated } from "@/components/ui/use-hydrated";
import { errorMessage } from "@/lib/trpc/errors";

/**
 * The person types the temporary password they were given and a new one of their own. Changing it
 * signs out every session (this one too), so the form signs them in again with the new password.
 * The fields are the browser's own (read when the form is sent), so what someone types while the page
 * is still loading is kept; the button waits for the page, so the form is never sent natively.
 */
export function ChoosePasswordForm({ email, minLength }: { email: string; minLength: number }) {
  const trpc = useTRPC();
  const hydrated = useHydrated();
  const [problem, setProblem] = useState<{ field: "current" | "chosen" | "repeated"; message: string } | null>(null);
  const [signingIn, setSigningIn] = useState(false);
  const choose = useMutation(
    trpc.me.choosePassword.mutationOptions({
      onSuccess: async (_result, variables) => {
        setSigningIn(true);
        const result = await signIn("credentials", { redirect: false, email, password: variables.new_password });
        // A full navigation, so that the server renders the app with the new session.
        window.location.assign(result?.ok && !result.error ? "/" : "/signin");
      },
    }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = new FormData(event.currentTarget);
    const typed = (name: string) => {
      const value = fields.get(name);
      return typeof value === "string" ? value : "";
    };
    const [current, chosen, repeated] = [typed("current"), typed("chosen"), typed("repeated")];
    if (!current) return setProblem({ field: "current", message: "Type the temporary password you were given." });
    if (chosen.length < minLength) return setProblem({ field: "chosen", message: `Your new password needs at least ${minLength} characters.` });
    if (chosen === current) return setProblem({ field: "chosen", message: "Choose a password that differs from the temporary one." });
    if (repeated !== chosen) return setProblem({ field: "repeated", message: "The two new passwords differ: type the same one twice." });
    setProblem(null);
    choose.mutate({ current_password: current, new_password: chosen });
  }

  const errorOf = (field: "current" | "chosen" | "repeated") => (problem?.field === field ? problem.message : undefined);
  return (
    <form className="form-stack" onSubmit={submit} noValidate>
      <input type="email" name="email" autoComplete="username" value={email} readOnly hidden />
      <TextField
        label="Temporary password"
        type="password"
        autoComplete="current-password"
        autoFocus
        name="current"
        error={errorOf("current")}
      />
      <TextField
        label="New password"
        type="password"
        autoComplete="new-password"
        hint={`At least ${minLength} characters. A few words you will remember are a good choice.`}
        name="chosen"
        error={errorOf("chosen")}
      />
      <TextField
        label="New password again"
        type="password"
        autoComplete="new-password"
        name="repeated"
        error={errorOf("repeated")}
      />
      {choose.isError ? <Status tone="error" title="Your password was not changed">{errorMessage(choose.error)}</Status> : null}
      <Button type="submit" block disabled={!hydrated} loading={choose.isPending || signingIn} loadingLabel="Saving…">
        Save and continue
      </Button>
    </form>
  );
}
