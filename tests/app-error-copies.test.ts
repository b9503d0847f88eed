import { describe, expect, it, vi } from "vitest";
import { AppError, detailResponse, toAppError } from "../server/errors";
import { ScanLooksLikePileError } from "../server/exam/intake/scan-check";

/**
 * A production node loads server/errors.ts more than once (server.ts's ports, and each Next.js route
 * bundle), so an AppError thrown by one copy reaches another copy's edge. It must keep its status and
 * sentence there, not turn into an unknown 500.
 */
async function anotherCopyOfErrors(): Promise<typeof import("../server/errors")> {
  vi.resetModules();
  return import("../server/errors");
}

describe("AppError across copies of its module", () => {
  it("is recognised by another copy's edge", async () => {
    const other = await anotherCopyOfErrors();
    expect(other.AppError).not.toBe(AppError);
    const thrownElsewhere = new other.AppError("invalid", "This file is not a PDF");
    expect(thrownElsewhere instanceof AppError).toBe(true);
    expect(toAppError(thrownElsewhere)).toBe(thrownElsewhere);
    const reply = detailResponse(thrownElsewhere);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ detail: "This file is not a PDF" });
  });

  it("does not take other errors for one", async () => {
    const other = await anotherCopyOfErrors();
    for (const value of [new Error("boom"), { code: "invalid", name: "AppError", message: "x" }, null, "AppError", 42]) {
      expect(value instanceof AppError).toBe(false);
      expect(value instanceof other.AppError).toBe(false);
    }
  });

  it("keeps the ordinary check for subclasses", () => {
    expect(new AppError("invalid", "x") instanceof ScanLooksLikePileError).toBe(false);
    expect(new ScanLooksLikePileError("x") instanceof ScanLooksLikePileError).toBe(true);
    expect(new ScanLooksLikePileError("x") instanceof AppError).toBe(true);
  });
});
