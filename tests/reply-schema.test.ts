import { beforeAll, expect, it, vi } from "vitest";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { GET as listTimetablesRoute } from "../app/database/timetable/timetables/route";
import { logger } from "../server/logger";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

// The domain functions behind one exam route and one classroom route (and their tRPC procedures) are
// made to return a reply that breaks the route's output schema: the server's bug, never the client's.
const malformed = { queue: [], timetables: [{ id: "not an id" }] };
vi.mock("../server/exam/batches", async (original) => ({
  ...(await original<typeof import("../server/exam/batches")>()),
  getQueue: async () => malformed.queue,
}));
vi.mock("../server/classroom/timetables", async (original) => ({
  ...(await original<typeof import("../server/classroom/timetables")>()),
  listTimetables: async () => ({ timetables: malformed.timetables }),
}));

describeOnEachDatabase("a reply that breaks its own schema", (database) => {
  let school: School;
  const batchId = crypto.randomUUID();
  const get = (route: (request: Request, context: never) => Promise<Response>, path: string, params?: object) =>
    route(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${school.teacher.token}` } }), {
      params: Promise.resolve(params ?? {}),
    } as never);

  beforeAll(async () => {
    school = await createSchool(database().db, "Malformed");
  });

  it("is a logged 500 on an exam route, a classroom route and through tRPC alike", async () => {
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    try {
      const exam = await get(queueRoute, `/api/exam/batches/${batchId}/queue`, { batch_id: batchId });
      expect(exam.status).toBe(500);
      expect(await exam.json()).toEqual({ detail: "Internal server error" });

      const classroom = await get(listTimetablesRoute, "/database/timetable/timetables");
      expect(classroom.status).toBe(500);

      const caller = createCaller({ db: database().db, user: { id: school.admin.id } });
      await expect(caller.exam.batches.queue({ batch_id: batchId })).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
      await expect(caller.timetables.list({})).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
      expect(logged).toHaveBeenCalledTimes(4);
    } finally {
      logged.mockRestore();
    }
  });
});
