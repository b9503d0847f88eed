/**
 * The imaging worker's heap limit, at its smallest (IMAGING_WORKER_HEAP_MB=64, set before the worker
 * starts): a file whose objects need more heap ends the worker's process (V8 aborts it), never the
 * app's — with a worker thread's resourceLimits it sometimes aborted the whole process. The
 * request it was on is refused as the file's fault (permanent), the one queued behind it (perhaps
 * another school's) is told to try again (transient), and the next request gets a new worker.
 */
import { describe, expect, it, vi } from "vitest";
import { AppError } from "../server/errors";
import { workerImaging } from "../server/exam/intake/imaging";
import { logger } from "../server/logger";
import { timeoutFor } from "./support/busy-machine";
import { rawPdf } from "./support/hostile-files";

process.env.IMAGING_WORKER_HEAP_MB = "64";

const onePage = (extra = "") =>
  rawPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]${extra ? " /Junk 4 0 R" : ""} >>`,
    ...(extra ? [extra] : []),
  ]);

describe("the imaging worker's memory limit", () => {
  it(
    "refuses the file that exhausted it with a sentence, tells the request behind it to try again, and serves on",
    async () => {
      // 3 million numbers in one array: 6 MB of file, several hundred MB of pdf-lib objects.
      const heavy = onePage(`[${"0 ".repeat(3_000_000)}]`);
      const imaging = workerImaging();
      const quiet = [vi.spyOn(logger, "error").mockImplementation(() => undefined), vi.spyOn(logger, "warn").mockImplementation(() => undefined)];
      try {
        const [refused, behind] = await Promise.allSettled([imaging.inspectPaper(heavy), imaging.inspectPaper(onePage())]);
        expect(refused).toMatchObject({ status: "rejected", reason: expect.any(AppError) as unknown });
        expect((refused as PromiseRejectedResult).reason).toMatchObject({
          code: "invalid",
          message: "This file needs more memory to read than one file may take: it may be damaged, or made to harm the server. Scan it again, or export the PDF again",
        });
        expect((behind as PromiseRejectedResult).reason).toMatchObject({ code: "unavailable", message: "The scan reader stopped unexpectedly while working on this file; try again" });
      } finally {
        for (const spy of quiet) spy.mockRestore();
      }
      expect(await imaging.inspectPaper(onePage())).toEqual({ pageCount: 1 });
    },
    timeoutFor(10),
  );
});
