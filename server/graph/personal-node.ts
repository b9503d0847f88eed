import { asc, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../db/client";
import { asService } from "../db/rls";
import { users } from "../db/schema";
import { enqueueJob } from "../jobs/enqueue";
import { defineJobKind } from "../jobs/kind";
import { graphStore } from "./index";
import type { GraphNodeInput } from "./port";

/**
 * Every user has their own node in their personal graph database (`users.user_db_name`), keyed by their
 * id, so that `GET /graph/node/children` answers for it from the day they are created: the node the demo
 * seed writes for its people, written for everyone else by a background job. The graph may be Neo4j,
 * which no database transaction reaches, so a creation (createUser, a roster import) queues the job in
 * its own transaction and the job writes every node still missing (`users.personal_node_at` null),
 * retried until the graph answers. The migration that added the column queued it once for the users
 * created before.
 */

export interface PersonalNodeSource {
  id: string;
  full_name: string;
  username: string;
  user_type: string;
}

/** A user's own node in their personal graph. */
export const personalUserNode = (person: PersonalNodeSource): GraphNodeInput => ({
  label: "User",
  key: person.id,
  properties: { name: person.full_name, username: person.username, user_type: person.user_type },
});

const BATCH = 200;

/** Writes the own node of every user who has none yet; answers how many were written. */
export async function writeMissingPersonalNodes(db: Db): Promise<number> {
  let written = 0;
  for (;;) {
    // Graph writes are a named service-level operation (projections).
    const pending = await asService(db, (tx) =>
      tx
        .select({ id: users.id, full_name: users.full_name, username: users.username, user_type: users.user_type, user_db_name: users.user_db_name })
        .from(users)
        .where(isNull(users.personal_node_at))
        .orderBy(asc(users.created_at), asc(users.id))
        .limit(BATCH),
    );
    if (pending.length === 0) return written;
    const store = graphStore(db);
    for (const person of pending) await store.write(person.user_db_name, (writer) => writer.upsertNodes([personalUserNode(person)]));
    await asService(db, (tx) =>
      tx
        .update(users)
        .set({ personal_node_at: new Date() })
        .where(inArray(users.id, pending.map((person) => person.id))),
    );
    written += pending.length;
  }
}

export const writePersonalNodesJob = defineJobKind({
  name: "graph.personal-nodes",
  payload: z.object({}),
  async run(_payload, { db }) {
    await writeMissingPersonalNodes(db);
  },
  describeFailure: () => "the personal graph database did not answer or refused the update",
});

/** Queues the writing of new users' own nodes inside the transaction that creates them (one job waits at a time). */
export function enqueuePersonalNodes(tx: Tx): Promise<string> {
  return enqueueJob(tx, writePersonalNodesJob, {}, { dedupeKey: "personal-nodes" });
}
