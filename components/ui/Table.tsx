import Link from "next/link";
import type { ReactNode } from "react";

/** A data table in a horizontally scrollable frame. `caption` names it for screen readers. */
export function Table({ caption, children }: { caption: string; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

/** The heading of a row-actions column: named for screen readers only, as narrow as its buttons. */
export function ActionsHeader() {
  return (
    <th scope="col" className="table__actions">
      <span className="visually-hidden">Actions</span>
    </th>
  );
}

/** A row's heading cell that opens the row's page, with an optional muted second line under the link. */
export function RowLink({ href, children, sub }: { href: string; children: ReactNode; sub?: ReactNode }) {
  return (
    <th scope="row">
      <Link href={href} className="table__primary-link">
        {children}
      </Link>
      {sub ? <span className="table__muted table__sub">{sub}</span> : null}
    </th>
  );
}
