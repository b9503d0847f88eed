import { Badge } from "@/components/ui/Badge";

import type { TemplateStatus } from "@/server/exam/templates";

export type { TemplateStatus };

const statusLabels: Record<TemplateStatus, string> = { draft: "Draft", ready: "Ready", archived: "Archived" };

/** Ready templates can be marked against; drafts are still being drawn; archived ones are put away. */
export function TemplateStatusBadge({ status }: { status: TemplateStatus }) {
  const tone = status === "ready" ? "success" : "neutral";
  return <span className={`template-status template-status--${status}`}><Badge tone={tone}>{statusLabels[status]}</Badge></span>;
}
