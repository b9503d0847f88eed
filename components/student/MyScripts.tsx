"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState } from "@/components/ui/EmptyState";
import { LocalDate } from "@/components/ui/dates";
import { MarkedWorkIcon } from "@/components/ui/icons";
import { QueryStates } from "@/components/ui/QueryStates";
import { useTRPC } from "@/components/trpc/client";
import { formatMarks } from "./marks";
import { useReviewWindow } from "./review-window";

/** The student's released scripts, newest first: a card each, so a phone reads them without a table. */
export function MyScripts() {
  const trpc = useTRPC();
  const scripts = useQuery(trpc.student.scripts.list.queryOptions());
  return (
    <QueryStates query={scripts} loading="Loading your marked work…" what="Your marked work">
      {({ scripts: list }) =>
        list.length === 0 ? (
          <EmptyState icon={<MarkedWorkIcon size={28} />} title="No marked work yet">
            <p>When your teacher releases the results of an exam you sat, your marked script appears here.</p>
          </EmptyState>
        ) : (
          <section aria-labelledby="my-scripts-heading" className="stack">
            <h2 id="my-scripts-heading" className="visually-hidden">
              Released scripts
            </h2>
            <ul className="my-work-list" role="list">
              {list.map((script) => (
                <li key={script.submission_id} className="card my-work-list__item">
                  <h3 className="my-work-list__title">
                    <Link href={`/my-work/${script.submission_id}`}>{script.paper_title}</Link>
                  </h3>
                  {script.batch_title !== script.paper_title ? <p className="muted">{script.batch_title}</p> : null}
                  <p className="my-work-list__total">
                    <span className="my-work-list__score">
                      {formatMarks(script.total_awarded)} / {formatMarks(script.total_available)}
                    </span>{" "}
                    marks
                  </p>
                  <p className="muted">
                    Released <LocalDate value={script.released_at} />
                    <ReviewWindowPhrase reviewsUntil={script.reviews_until} />
                  </p>
                </li>
              ))}
            </ul>
          </section>
        )
      }
    </QueryStates>
  );
}

/** After the release date: until when a review may be asked for, or since when not. */
function ReviewWindowPhrase({ reviewsUntil }: { reviewsUntil: string | null }) {
  const reviews = useReviewWindow(reviewsUntil);
  if (reviews.state === "none") return null;
  return (
    <>
      {" "}
      · {reviews.state === "open" ? "you can ask for a review until" : "reviews closed on"} <LocalDate value={reviews.until} style="dateTime" />
    </>
  );
}
