import type { ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { CopyField } from "@/components/ui/CopyField";
import { Status } from "@/components/ui/Status";

/**
 * A secret shown once after it was created (a personal access token, a speech API key): a warning that
 * says so, the value with a copy button, and a way to hide it once copied.
 */
export function OneTimeSecret({
  id,
  title,
  label,
  value,
  hideLabel,
  onHide,
  children,
}: {
  id: string;
  title: string;
  label: string;
  value: string;
  hideLabel: string;
  onHide: () => void;
  /** What the warning says: that this is the only time, and what to do if it is lost. */
  children: ReactNode;
}) {
  return (
    <section className="token-reveal" aria-labelledby={id}>
      <Status tone="warning" role="none" title={<span id={id}>{title}</span>}>
        <p>{children}</p>
      </Status>
      <CopyField label={label} value={value} autoFocus />
      <div>
        <Button variant="secondary" onClick={onHide}>
          {hideLabel}
        </Button>
      </div>
    </section>
  );
}
