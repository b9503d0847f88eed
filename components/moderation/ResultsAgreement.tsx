"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { AgreementTable } from "./AgreementTable";

/**
 * The results page's marker agreement, for the batch's moderators (its owner and the department heads)
 * once second marks exist; others read the moderation state only, which says they are not moderators.
 */
export function ResultsAgreement({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const state = useQuery(trpc.exam.moderation.state.queryOptions({ batch_id: batchId }));
  const agreement = useQuery({ ...trpc.exam.moderation.agreement.queryOptions({ batch_id: batchId }), enabled: state.data?.can_moderate === true });
  if (!agreement.data || agreement.data.questions.length === 0) return null;
  return (
    <section className="results__table" aria-labelledby="results-agreement-heading">
      <div className="section-heading">
        <h2 id="results-agreement-heading">Marker agreement</h2>
        <p className="muted">
          From the moderation sample&rsquo;s second marks. <Link href={`/batches/${batchId}/moderation`}>Reconcile the differences</Link>
          {state.data?.sign_off ? " · Signed off" : null}
        </p>
      </div>
      <AgreementTable agreement={agreement.data} />
    </section>
  );
}
