import type { ReactNode } from "react";

export function Badge({ tone, children }: { tone: "success" | "neutral" | "danger"; children: ReactNode }) {
  return <span className={`badge badge--${tone}`}>{children}</span>;
}
