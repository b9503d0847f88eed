import type { ReactNode } from "react";
import { Button } from "./Button";
import { Status } from "./Status";

/** A success message that stays until the user dismisses it (a class created, a timetable saved). */
export function Notice({ children, onDismiss }: { children: ReactNode; onDismiss: () => void }) {
  return (
    <Status
      tone="success"
      action={
        <Button variant="secondary" size="small" onClick={onDismiss}>
          Dismiss
        </Button>
      }
    >
      {children}
    </Status>
  );
}
