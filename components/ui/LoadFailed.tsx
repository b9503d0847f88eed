import { errorMessage } from "@/lib/trpc/errors";
import { Button } from "./Button";
import { Status } from "./Status";

/** A read that failed: what could not be loaded, why, and a way to try again. */
export function LoadFailed({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  return (
    <Status
      tone="error"
      title={`${what} could not be loaded`}
      action={
        <Button variant="secondary" size="small" onClick={onRetry}>
          Try again
        </Button>
      }
    >
      {errorMessage(error)}
    </Status>
  );
}
