import type { ReactNode } from "react";
import { Spinner } from "./Spinner";

/** What is being loaded, with a spinner, announced politely. */
export function Loading({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p className={["loading-line", className].filter(Boolean).join(" ")} role="status">
      <Spinner /> {children}
    </p>
  );
}
