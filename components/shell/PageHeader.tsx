import type { ReactNode } from "react";

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page__header">
      <h1>{title}</h1>
      {children ? <p className="page__lede">{children}</p> : null}
    </header>
  );
}
