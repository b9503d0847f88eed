import { doublePrecision, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * What each speech rate-limit key (an API key's id, or `user:<id>` for dictation) has used in its
 * current one-minute window, shared by every app node. Only the SECURITY DEFINER functions
 * app.take_speech_rate_limit and app.forget_speech_rate_windows (server/db/sql/functions/) read and
 * write it (server/speech/rate-limits.ts calls them); row-level security without a
 * policy and no grant to markbook_app keep everyone else out.
 */
export const speechRateWindows = pgTable("speech_rate_windows", {
  key: text().primaryKey(),
  /** When the key's current window began: its first request after the previous window ended. */
  window_start: timestamp({ withTimezone: true, precision: 3 }).notNull(),
  requests: integer().notNull(),
  audio_seconds: doublePrecision().notNull(),
}).enableRLS();
