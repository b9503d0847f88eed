import { useState } from "react";

/** Whether a released script takes review requests: never offered, open until a moment, or closed since one. */
export type ReviewWindow = { state: "none" } | { state: "open" | "closed"; until: Date };

/**
 * The script's review window as of when the page opened (the server asks again at the moment of a
 * request): a page left open past the date says "open" until reloaded, and the request then gets the
 * server's sentence.
 */
export function useReviewWindow(reviewsUntil: string | null): ReviewWindow {
  const [openedAt] = useState(() => Date.now());
  if (reviewsUntil === null) return { state: "none" };
  const until = new Date(reviewsUntil);
  return { state: until.getTime() > openedAt ? "open" : "closed", until };
}
