import { sql } from "drizzle-orm";
import { roles } from "../../../lib/rules/roles";
import { boolean, check, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

export const membershipRole = pgEnum("membership_role", roles);
export const userType = pgEnum("user_type", ["student", "teacher", "staff", "developer"]);

export const institutes = pgTable("institutes", {
  id: uuid().primaryKey().defaultRandom(),
  name: text().notNull(),
  /** Graph database of the school (departments, classes, people). */
  graph_db_name: text().notNull().unique(),
  /** Graph database of the school's curriculum (subjects, specification points). */
  curriculum_db_name: text().notNull().unique(),
  created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const users = pgTable(
  "users",
  {
    id: uuid().primaryKey().defaultRandom(),
    email: text().notNull(),
    /** scrypt hash (see server/auth/passwords.ts); null means the user cannot sign in with a password. */
    password_hash: text(),
    user_type: userType().notNull(),
    username: text().notNull(),
    full_name: text().notNull(),
    display_name: text().notNull(),
    /** The user's personal graph database. */
    user_db_name: text().notNull().unique(),
    /** The user's school: the institute shown by /me/bootstrap. */
    school_id: uuid().references(() => institutes.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Set: the user may no longer sign in, and their tokens and dictation keys stop working. */
    deactivated_at: timestamp({ withTimezone: true }),
    /** A student's year group as the school's information system names it ("Year 10", "10"). */
    year_group: text(),
    /** The user's id in the school's information system (OneRoster sourcedId): how a re-import finds them. */
    sis_id: text(),
    /** Set when an admin gave a temporary password: the user chooses their own at their next sign-in. */
    must_change_password: boolean().notNull().default(false),
    /**
     * When the password last changed (an admin's reset or the user's own choice): sessions begun and
     * bearer tokens issued before it are refused.
     */
    password_changed_at: timestamp({ withTimezone: true }),
    /**
     * When the user's own node was written in their personal graph (server/graph/personal-node.ts); null
     * while the background job that writes it has still to run.
     */
    personal_node_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${table.email})`),
    uniqueIndex("users_username_key").on(table.username),
    uniqueIndex("users_school_sis_id_key").on(table.school_id, table.sis_id),
    check("users_email_shape", sql`${table.email} ~ '^[^@\\s]+@[^@\\s]+$'`),
  ],
);

export const instituteMemberships = pgTable(
  "institute_memberships",
  {
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    user_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: membershipRole().notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.institute_id, table.user_id, table.role] }),
    index("institute_memberships_user_idx").on(table.user_id),
  ],
);

/**
 * Keys of the speech service (`/v1`). Only a SHA-256 of the key is stored; the key is shown once.
 * A key belongs to an institute (its school admins list and revoke it) or, with institute_id null, to
 * the installation (only the command line sees it).
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** A school's key goes with its school: never an installation key by accident. */
    institute_id: uuid().references(() => institutes.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** First characters of the key, shown in lists so that a key can be recognised. */
    prefix: text().notNull(),
    key_hash: text().notNull().unique(),
    created_by: uuid().references(() => users.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    last_used_at: timestamp({ withTimezone: true }),
    revoked_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    index("api_keys_institute_idx").on(table.institute_id),
    check("api_keys_name_not_blank", sql`length(trim(${table.name})) > 0`),
  ],
);

/** Personal access tokens: long-lived user tokens for external tools, listed and revocable by their owner. */
export const personalAccessTokens = pgTable(
  "personal_access_tokens",
  {
    /** The token's `jti` claim. */
    id: uuid().primaryKey().defaultRandom(),
    user_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text().notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expires_at: timestamp({ withTimezone: true }).notNull(),
    revoked_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    index("personal_access_tokens_user_idx").on(table.user_id),
    check("personal_access_tokens_name_not_blank", sql`length(trim(${table.name})) > 0`),
  ],
);

/**
 * Failed password sign-ins, counted per key and shared by every app node (server/auth/sign-in-throttle.ts):
 * `account:<hmac of the normalised email tried>`, `address:<hmac of the client address>` and
 * `device:<user id>:<known-device id>`. Keys are HMACs, so the table holds neither the emails tried
 * (known or not) nor the addresses. Only the SECURITY DEFINER app.*sign_in_failure* functions
 * (server/db/sql/functions/) read and write it: row-level security without a policy and no grant to
 * markbook_app keep everyone else out.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    key: text().primaryKey(),
    /** Failures since the count was last reset (a success) or forgotten (forget_at passed). */
    failures: integer().notNull(),
    last_failed_at: timestamp({ withTimezone: true, precision: 3 }).notNull(),
    /** The next attempt with this key is refused before this time (the growing delay, or the lock). */
    blocked_until: timestamp({ withTimezone: true, precision: 3 }),
    /** After this, the count starts again from nothing (and the row may be deleted). */
    forget_at: timestamp({ withTimezone: true, precision: 3 }).notNull(),
  },
  (table) => [index("sign_in_failures_forget_at_idx").on(table.forget_at)],
).enableRLS();
