import { errorMessage } from "@/lib/trpc/errors";
import { Button } from "./Button";
import { Status } from "./Status";

/**
 * A read that failed: what could not be loaded, why, and a way to try again. The retry is a query's
 * `refetch`, which resolves with the error state instead of rejecting: fire and forget.
 */
export function LoadFailed({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => Promise<unknown> }) {
  return (
    <Status
      tone="error"
      title={`${what} could not be loaded`}
      action={
        <Button variant="secondary" size="small" onClick={() => void onRetry()}>
          Try again
        </Button>
      }
    >
      {errorMessage(error)}
    </Status>
  );
}
