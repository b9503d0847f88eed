"use client";

import Link from "next/link";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";

type IntakeStatus = inferRouterOutputs<AppRouter>["exam"]["intake"]["status"];

/** While a pile is being read its figures move every second; otherwise they are read now and then. */
export const intakeRefreshMs = (status: IntakeStatus | undefined) => (status?.piles.some((pile) => pile.status !== "done" && pile.status !== "failed") ? 1000 : 15_000);

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * Scanned piles of a batch: how far each has been read, and where its pages went (filed to students,
 * scripts to identify, pages set aside). Live while a pile is read, and the same after a reload: it all
 * comes from the database (exam.intake.status).
 */
export function IntakeProgress({ batchId, status, canIdentify, anonymous }: { batchId: string; status: IntakeStatus; canIdentify: boolean; anonymous: boolean }) {
  const { piles, counts } = status;
  if (piles.length === 0) return null;
  const toIdentify = status.scripts_to_identify.length;
  // Students' scripts with gaps; in an anonymous batch (no names sent) every script, by its number.
  const withGaps = status.missing_pages.flatMap((entry) =>
    anonymous ? [{ ...entry, who: `Script ${entry.script_number}` }] : entry.student_name !== null ? [{ ...entry, who: entry.student_name }] : [],
  );
  return (
    <section className="card intake-progress" aria-labelledby="intake-progress-heading">
      <header className="card__header">
        <h2 id="intake-progress-heading">Scanned piles</h2>
      </header>
      <ul className="intake-progress__piles" aria-live="polite">
        {piles.map((pile) => (
          <li key={pile.id} className="intake-progress__pile">
            <strong>{pile.name}</strong>
            {pile.status === "failed" ? (
              <span role="alert">Could not be read: {pile.failure}</span>
            ) : pile.status === "done" ? (
              <>
                <span role={pile.refused > 0 && pile.filed === 0 ? "alert" : undefined}>{pile.headline}</span>
                {pile.refusals.length > 0 ? (
                  <ul className="intake-progress__refusals" aria-label={`Pages of ${pile.name} refused`}>
                    {pile.refusals.map((refusal) => (
                      <li key={refusal.reason}>
                        {plural(refusal.pages, "page")}: {refusal.reason}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </>
            ) : (
              <>
                <span>
                  {pile.status === "filing"
                    ? "Filing the pages…"
                    : pile.page_count
                      ? `Reading page ${Math.min(pile.pages_read + 1, pile.page_count)} of ${pile.page_count}`
                      : "Waiting to be read…"}
                </span>
                <progress max={pile.page_count ?? 1} value={pile.pages_read} aria-label={`Pages of ${pile.name} read`} />
              </>
            )}
          </li>
        ))}
      </ul>
      <dl className="intake-progress__counts">
        <div>
          <dt>Pages read</dt>
          <dd>{counts.pages_read}</dd>
        </div>
        <div>
          <dt>Filed to students</dt>
          <dd>{counts.filed_to_students}</dd>
        </div>
        <div>
          <dt>In scripts to identify</dt>
          <dd>{counts.in_scripts_to_identify}</dd>
        </div>
        <div>
          <dt>Scanned twice</dt>
          <dd>{counts.duplicates}</dd>
        </div>
        <div>
          <dt>Refused</dt>
          <dd>{counts.refused}</dd>
        </div>
      </dl>
      {toIdentify > 0 ? (
        <p>
          {plural(toIdentify, "script")} without a readable student code (spare copies, torn corners):{" "}
          {canIdentify ? <Link href={`/batches/${batchId}/identify`}>identify them</Link> : "the batch's owner identifies them"}.
        </p>
      ) : null}
      {withGaps.length > 0 ? (
        <p className="muted">
          Missing pages: {withGaps.map((entry) => `${entry.who} (page ${entry.missing_positions.join(", ")})`).join("; ")}.
        </p>
      ) : null}
      <p>
        <Link href={`/batches/${batchId}/pages`}>See every scanned page and where it went</Link>
        {canIdentify ? " (a page in the wrong script can be moved there)" : ""}
      </p>
      {status.set_aside.length > 0 ? (
        <details>
          <summary>{plural(status.set_aside.length, "page")} set aside</summary>
          <ul>
            {status.set_aside.map((page) => (
              <li key={page.page_id}>
                {page.pile_name}, page {page.pile_page}: {page.note}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
