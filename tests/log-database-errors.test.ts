/**
 * A failed query's log line carries PostgreSQL's own account (SQLSTATE, message, detail, hint), never
 * the query's values: each query below fails for real, with a secret among its parameters that
 * PostgreSQL echoes in its message or detail.
 */
import fc from "fast-check";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { toAppError } from "../server/errors";
import { logger } from "../server/logger";
import { describeOnEachDatabase } from "./support/database";

let written: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  written = [];
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return true;
  });
});
afterEach(() => {
  process.stderr.write = realWrite;
});

/** A secret the log must never show: a marker no log line has, then any text PostgreSQL accepts. */
const secret = fc
  .string({ unit: "grapheme", minLength: 1, maxLength: 40 })
  .filter((text) => !text.includes("\u0000"))
  .map((text) => `Secret-${text}`);

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("the query did not fail");
}

describeOnEachDatabase("a failed query in the log", (database) => {
  it("a value PostgreSQL echoes in its message: the code and the message are logged, the value is not", async () => {
    await fc.assert(
      fc.asyncProperty(secret, async (value) => {
        written = [];
        const error = await failure(() => database().db.execute(sql`select ${value}::uuid`));
        logger.error("a query failed", error);
        // Wrapped as tRPC wraps a procedure's error, whose message repeats drizzle's (params line included).
        logger.error("a procedure failed", new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: error }));
        const log = written.join("");
        expect(log).toContain("Failed query: select $1::uuid");
        expect(log).toContain("SQLSTATE 22P02: invalid input syntax for type uuid");
        expect(log).not.toContain(value);
      }),
      { numRuns: 20 },
    );
  });

  it("a value PostgreSQL names in its detail (a duplicate key): the code, message and detail are logged, the value is not", async () => {
    await fc.assert(
      fc.asyncProperty(secret, async (value) => {
        written = [];
        const error = await failure(() =>
          database().db.transaction(async (tx) => {
            await tx.execute(sql`create temporary table logged_secret (v text unique) on commit drop`);
            await tx.execute(sql`insert into logged_secret values (${value})`);
            await tx.execute(sql`insert into logged_secret values (${value})`);
          }),
        );
        logger.error("a query failed", error);
        const log = written.join("");
        expect(log).toContain("SQLSTATE 23505: duplicate key value violates unique constraint");
        expect(log).toContain("detail: Key (v)=(<value>) already exists");
        expect(log).not.toContain(value);
      }),
      { numRuns: 10 },
    );
  });

  it("permission denied reaches the log through the error handler, with its code, without the value", async () => {
    await fc.assert(
      fc.asyncProperty(secret, async (value) => {
        written = [];
        const error = await failure(() =>
          database().db.transaction(async (tx) => {
            await tx.execute(sql`set local role markbook_app`);
            await tx.execute(sql`select * from drizzle.__drizzle_migrations where hash = ${value}`);
          }),
        );
        expect(toAppError(error).status).toBe(500);
        const log = written.join("");
        expect(log).toContain("SQLSTATE 42501: permission denied for schema drizzle");
        expect(log).not.toContain(value);
      }),
      { numRuns: 5 },
    );
  });
});
