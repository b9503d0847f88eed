import { describe, expect, it } from "vitest";
import { type Draft, draftKey, isCompleteMark, reviseDraft, splitDraftKey, withoutSavedDraft } from "../components/marking/drafts";
import { type SaveQueue, emptySaveQueue, requestSave, requestSend, retryDelayMs, sendWithRetries, settleSave, worthRetrying } from "../components/marking/save-queue";

const key = draftKey("sub-1", "q-1");
const draft = (change: Partial<Draft> = {}): Draft => ({ markId: "mark-1", mark: "2", comment: "", confirm: false, revision: 1, ...change });

describe("drafts", () => {
  it("splits a draft key into its submission and question", () => {
    expect(splitDraftKey(key)).toEqual({ submissionId: "sub-1", questionId: "q-1" });
  });

  it("starts a draft from the fresh one, then revises it, bumping the revision", () => {
    const fresh = () => draft({ revision: 0, mark: "1", comment: "kept" });
    const first = reviseDraft({}, key, { mark: "2" }, fresh);
    expect(first[key]).toEqual(draft({ mark: "2", comment: "kept", revision: 1 }));
    const second = reviseDraft(first, key, { confirm: true }, () => {
      throw new Error("a draft exists: no fresh one is made");
    });
    expect(second[key]).toEqual(draft({ mark: "2", comment: "kept", confirm: true, revision: 2 }));
  });

  it("removes a saved draft only if it was not edited since", () => {
    const drafts = { [key]: draft({ revision: 3 }) };
    expect(withoutSavedDraft(drafts, key, 3)).toEqual({});
    expect(withoutSavedDraft(drafts, key, 2)).toBe(drafts);
  });

  it("autosaves empty and complete marks, not half-typed ones", () => {
    expect(isCompleteMark("")).toBe(true);
    expect(isCompleteMark(" 2 ")).toBe(true);
    expect(isCompleteMark("1.5")).toBe(true);
    expect(isCompleteMark("1.")).toBe(false);
  });
});

describe("the save queue", () => {
  it("sends a draft and shows it saving", () => {
    const { queue, send } = requestSave(emptySaveQueue, key, draft({ mark: "1.5", comment: "Good", confirm: true }), 2);
    expect(send).toEqual({ mark_id: "mark-1", body: { submission_id: "sub-1", question_id: "q-1", awarded_marks: 1.5, comment: "Good", confirmed: true } });
    expect(queue.states[key]).toEqual({ state: "saving" });
    expect(queue.sending.has(key)).toBe(true);
  });

  it("names the annotations that justify the mark when they are known, and leaves them as they are when not", () => {
    expect(requestSave(emptySaveQueue, key, draft({ mark: "1" }), 2, ["shape-1", "shape-2"]).send?.body.annotation_shape_ids).toEqual(["shape-1", "shape-2"]);
    // None drawn: the mark names none (a shape deleted since is no longer named).
    expect(requestSave(emptySaveQueue, key, draft({ mark: "1" }), 2, []).send?.body.annotation_shape_ids).toEqual([]);
    expect(requestSave(emptySaveQueue, key, draft({ mark: "1" }), 2).send?.body).not.toHaveProperty("annotation_shape_ids");
  });

  it("queues any kind of draft the same way: a refused one shows why, without Retry, and is not sent", () => {
    const refused = requestSend(emptySaveQueue, "shape-1", { revision: 1 }, () => ({ refused: "a text comment needs its words" }));
    expect(refused.send).toBeNull();
    expect(refused.queue.states["shape-1"]).toEqual({ state: "error", message: "a text comment needs its words", retryable: false });
    const sent = requestSend(emptySaveQueue, "shape-1", { revision: 1 }, () => ({ request: { remove: "shape-1" } }));
    expect(sent.send).toEqual({ remove: "shape-1" });
    expect(requestSend(sent.queue, "shape-1", { revision: 2 }, () => ({ request: { remove: "shape-1" } })).queue.again.has("shape-1")).toBe(true);
  });

  it("sends an empty mark and a blank comment as null, and no confirmation unless confirmed", () => {
    const { send } = requestSave(emptySaveQueue, key, draft({ mark: " ", comment: "  " }), 2);
    expect(send?.body).toEqual({ submission_id: "sub-1", question_id: "q-1", awarded_marks: null, comment: null });
  });

  it("sends no rubric detail when no item is applied and nothing typed: that is no mark, not the items' sum of 0", () => {
    const { send } = requestSave(emptySaveQueue, key, draft({ mark: "", items: [], confirm: true }), 2);
    expect(send?.body).toEqual({ submission_id: "sub-1", question_id: "q-1", awarded_marks: null, comment: null, confirmed: true });
    // "No marks": 0 typed with no item is a rubric mark of no item.
    const zero = requestSave(emptySaveQueue, key, draft({ mark: "0", items: [] }), 2).send;
    expect(zero?.body).toMatchObject({ awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [] } });
  });

  it("sends the rubric items applied with the mark they make", () => {
    const { send } = requestSave(emptySaveQueue, key, draft({ mark: "2", items: ["item-2", "item-1"], confirm: true }), 2);
    expect(send?.body).toEqual({
      submission_id: "sub-1",
      question_id: "q-1",
      awarded_marks: 2,
      comment: null,
      confirmed: true,
      mark_scheme_detail: { type: "rubric", items: ["item-2", "item-1"] },
    });
  });

  it("refuses a mark over the maximum without sending it", () => {
    const { queue, send } = requestSave(emptySaveQueue, key, draft({ mark: "3" }), 2);
    expect(send).toBeNull();
    expect(queue.states[key]).toEqual({ state: "error", message: "At most 2 marks for this question.", retryable: false });
    expect(queue.sending.size).toBe(0);
  });

  it("does nothing without a draft", () => {
    expect(requestSave(emptySaveQueue, key, undefined, 2)).toEqual({ queue: emptySaveQueue, send: null });
  });

  it("holds a second save of the same mark until the first settles, then saves again", () => {
    const first = requestSave(emptySaveQueue, key, draft(), 2).queue;
    const second = requestSave(first, key, draft({ mark: "1", revision: 2 }), 2);
    expect(second.send).toBeNull();
    expect(second.queue.again.has(key)).toBe(true);
    const settled = settleSave(second.queue, key, { saved: true });
    expect(settled.again).toBe(true);
    expect(settled.queue).toEqual<SaveQueue>({ states: { [key]: { state: "saved" } }, sending: new Set(), again: new Set() });
  });

  it("saves other marks beside one on its way", () => {
    const other = draftKey("sub-2", "q-1");
    const first = requestSave(emptySaveQueue, key, draft(), 2).queue;
    const second = requestSave(first, other, draft(), 2);
    expect(second.send?.body.submission_id).toBe("sub-2");
    expect([...second.queue.sending]).toEqual([key, other]);
  });

  it("shows a failed save as an error, sent again by Retry", () => {
    const sending = requestSave(emptySaveQueue, key, draft(), 2).queue;
    const failed = settleSave(sending, key, { saved: false, message: "The server is unavailable", retryable: true });
    expect(failed.again).toBe(false);
    expect(failed.queue.states[key]).toEqual({ state: "error", message: "The server is unavailable", retryable: true });
    const retried = requestSave(failed.queue, key, draft(), 2);
    expect(retried.send).not.toBeNull();
    expect(retried.queue.states[key]).toEqual({ state: "saving" });
  });

  it("leaves the queue it was given unchanged", () => {
    const sending = requestSave(emptySaveQueue, key, draft(), 2).queue;
    settleSave(requestSave(sending, key, draft(), 2).queue, key, { saved: true });
    expect(emptySaveQueue).toEqual({ states: {}, sending: new Set(), again: new Set() });
    expect(sending.again.size).toBe(0);
    expect(sending.sending.has(key)).toBe(true);
  });
});

describe("retries", () => {
  it("retries network and server errors, not refusals", () => {
    expect(worthRetrying(undefined)).toBe(true);
    expect(worthRetrying(503)).toBe(true);
    expect(worthRetrying(500)).toBe(true);
    expect(worthRetrying(429)).toBe(true);
    expect(worthRetrying(409)).toBe(false);
    expect(worthRetrying(404)).toBe(false);
    expect(worthRetrying(403)).toBe(false);
    expect(worthRetrying(400)).toBe(false);
  });

  it("waits 0.4 s after the first failure, doubling", () => {
    expect([0, 1, 2, 3].map(retryDelayMs)).toEqual([400, 800, 1600, 3200]);
  });

  const run = (outcomes: ("ok" | "retry" | "refuse")[]) => {
    const pauses: number[] = [];
    let calls = 0;
    const result = sendWithRetries(
      async () => {
        const outcome = outcomes[calls++];
        if (outcome === "ok") return calls;
        throw new Error(outcome);
      },
      { retries: 3, worthRetrying: (error) => (error as Error).message === "retry", sleep: async (ms) => void pauses.push(ms) },
    );
    return result.then((sent) => ({ sent, pauses, calls }));
  };

  it("returns the first success", async () => {
    expect(await run(["retry", "retry", "ok"])).toEqual({ sent: { ok: true, value: 3 }, pauses: [400, 800], calls: 3 });
  });

  it("gives up after the retries, having paused after every failure", async () => {
    const { sent, pauses, calls } = await run(["retry", "retry", "retry", "retry", "ok"]);
    expect(sent).toEqual({ ok: false, error: new Error("retry") });
    expect(pauses).toEqual([400, 800, 1600, 3200]);
    expect(calls).toBe(4);
  });

  it("stops at a refusal at once", async () => {
    expect(await run(["retry", "refuse", "ok"])).toEqual({ sent: { ok: false, error: new Error("refuse") }, pauses: [400], calls: 2 });
  });
});
