import type { ReactNode } from "react";
import { LoadFailed } from "./LoadFailed";
import { Loading } from "./Loading";

interface QueryState<Data> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: Data | undefined;
  refetch: () => Promise<unknown>;
}

/**
 * A read's three states on a screen: the loading line while it is pending, the failure with a retry
 * when it failed, and otherwise what `children` makes of the data (including its own empty state).
 */
export function QueryStates<Data>({
  query,
  loading,
  what,
  children,
}: {
  query: QueryState<Data>;
  /** The loading line, for example "Loading classes…". */
  loading: string;
  /** What could not be loaded, for example "The classes". */
  what: string;
  children: (data: Data) => ReactNode;
}) {
  if (query.isPending) return <Loading>{loading}</Loading>;
  if (query.isError || query.data === undefined) return <LoadFailed what={what} error={query.error} onRetry={() => query.refetch()} />;
  return children(query.data);
}
