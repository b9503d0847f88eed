"use client";

import { QueryCache, QueryClient, QueryClientProvider, MutationCache } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";

const trpcContext = createTRPCContext<AppRouter>();
const { TRPCProvider } = trpcContext;
export const { useTRPC, useTRPCClient } = trpcContext;

/** A signed-out (expired) session: send the user to sign in, and back here afterwards. */
function redirectWhenSignedOut(error: unknown): void {
  if (!(error instanceof TRPCClientError)) return;
  if ((error.data as { code?: string } | undefined)?.code !== "UNAUTHORIZED") return;
  const here = `${window.location.pathname}${window.location.search}`;
  window.location.assign(`/signin?callbackUrl=${encodeURIComponent(here)}`);
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: redirectWhenSignedOut }),
    mutationCache: new MutationCache({ onError: redirectWhenSignedOut }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // An authorization or validation error does not get better by asking again.
        retry: (failures, error) => {
          const status = error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
          return failures < 2 && !(status && status < 500);
        },
      },
    },
  });
}

/** TanStack Query + tRPC for the client components of the signed-in area. */
export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", transformer: superjson })],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
