/**
 * The dictation button's sentences when dictation cannot start: every getUserMedia failure becomes words
 * a teacher can act on (never the browser's "Requested device not found"), and the server's own refusals
 * pass through as they are.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GENERIC_FAILURE_MESSAGE, dictationStartFailureMessage } from "../components/marking/dictation-errors";

/** What browsers throw from getUserMedia (Chrome, Firefox, Safari; current and older names). */
const BROWSER_FAILURES = [
  ["NotFoundError", "Requested device not found", "No microphone was found"],
  ["DevicesNotFoundError", "Requested device not found", "No microphone was found"],
  ["OverconstrainedError", "Constraints could be not satisfied.", "No microphone was found"],
  ["NotAllowedError", "Permission denied", "did not allow the microphone"],
  ["PermissionDeniedError", "Permission denied", "did not allow the microphone"],
  ["NotReadableError", "Could not start audio source", "another program may be using it"],
  ["TrackStartError", "Could not start audio source", "another program may be using it"],
  ["AbortError", "Starting audio failed", "stopped before dictation could start"],
  ["SecurityError", "The request is not allowed by the user agent", "does not allow the microphone"],
] as const;

describe("dictation's start failures in a teacher's words", () => {
  it("says what happened and what to do for each microphone failure, not the browser's message", () => {
    for (const [name, browserMessage, sentence] of BROWSER_FAILURES) {
      const message = dictationStartFailureMessage(new DOMException(browserMessage, name));
      expect(message, name).toContain(sentence);
      expect(message, name).not.toContain(browserMessage);
      expect(message, name).toMatch(/press Dictate comment again\.$/);
    }
  });

  it("passes the server's refusal through, and says something useful for anything else", () => {
    const refusal = Object.assign(new Error("Your session has ended: sign in again."), { name: "TRPCClientError" });
    expect(dictationStartFailureMessage(refusal)).toBe("Your session has ended: sign in again.");
    for (const odd of [new TypeError("Failed to construct 'AudioContext'"), "a string", null, undefined, 42, { name: 7 }]) {
      expect(dictationStartFailureMessage(odd)).toBe(GENERIC_FAILURE_MESSAGE);
    }
  });

  it("never shows the browser's own text for any error whatever its name and message", () => {
    const known = new Set(["TRPCClientError"]);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...BROWSER_FAILURES.map(([name]) => name)), fc.string()), fc.string({ minLength: 12 }), (name, browserMessage) => {
        fc.pre(!known.has(name));
        const message = dictationStartFailureMessage(new DOMException(browserMessage, name));
        expect(message).not.toContain(browserMessage);
        expect(message).toMatch(/^[A-Z].*\.$/);
      }),
      { numRuns: 300 },
    );
  });
});
