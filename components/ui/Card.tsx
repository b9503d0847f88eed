import type { ReactNode } from "react";

interface CardProps {
  /** Heading text; rendered as an h2 unless `headingLevel` says otherwise. */
  title?: ReactNode;
  headingLevel?: 2 | 3;
  description?: ReactNode;
  /** Labels the section landmark by its heading. */
  id?: string;
  className?: string;
  children?: ReactNode;
}

/** A surface for one topic. With a title it is a labelled <section>. */
export function Card({ title, headingLevel = 2, description, id, className, children }: CardProps) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const headingId = id ? `${id}-heading` : undefined;
  const classes = ["card", className].filter(Boolean).join(" ");
  if (!title) return <div className={classes}>{children}</div>;
  return (
    <section className={classes} id={id} aria-labelledby={headingId}>
      <header className="card__header">
        <Heading id={headingId}>{title}</Heading>
        {description ? <p className="card__description">{description}</p> : null}
      </header>
      {children}
    </section>
  );
}
