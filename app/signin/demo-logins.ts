import type { SignInFormProps } from "@/components/auth/SignInForm";

/**
 * The demo accounts to show on the sign-in page, or null. Shown only when the server says the demo
 * school was seeded into this installation: never on a production installation without demo data.
 */
export async function demoLoginsIfSeeded(): Promise<SignInFormProps["demo"]> {
  return null;
}
