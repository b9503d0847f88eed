import type { ReactNode } from "react";

interface EmptyStateProps {
  icon: ReactNode;
  title: string;
  /** Heading level that fits the page outline (the page's h1 comes first). */
  headingLevel?: 2 | 3;
  children: ReactNode;
  /** What the user will be able to do here. */
  upcoming?: string[];
  note?: ReactNode;
}

/** An honest empty area: what will be here, and nothing that pretends to work. */
export function EmptyState({ icon, title, headingLevel = 2, children, upcoming, note }: EmptyStateProps) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <div className="empty-state">
      <div className="empty-state__icon">{icon}</div>
      <Heading className="empty-state__title">{title}</Heading>
      <div className="empty-state__body">{children}</div>
      {upcoming?.length ? (
        <ul className="empty-state__list">
          {upcoming.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      ) : null}
      {note ? <p className="empty-state__note">{note}</p> : null}
    </div>
  );
}
