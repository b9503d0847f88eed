/**
 * What the dictation button says when dictation cannot start, in a teacher's words. The browser's own
 * messages ("Requested device not found", "Permission denied", "Could not start audio source") name
 * nothing a teacher can act on, so each failure of getUserMedia (by its DOMException name) becomes a
 * sentence that says what happened and what to do; the server's refusals (tRPC errors) are already
 * sentences and pass through.
 */

const TRY_AGAIN = "then press Dictate comment again";

/** getUserMedia's failures (the names of the Media Capture spec, and older Chrome and Firefox names). */
const MICROPHONE_FAILURES: Record<string, string> = {
  NotFoundError: `No microphone was found. Plug one in or switch it on, allow this site to use it, ${TRY_AGAIN}.`,
  DevicesNotFoundError: `No microphone was found. Plug one in or switch it on, allow this site to use it, ${TRY_AGAIN}.`,
  OverconstrainedError: `No microphone was found that can record here. Plug one in or choose another in the computer's sound settings, ${TRY_AGAIN}.`,
  NotAllowedError: `The browser did not allow the microphone. Allow it for this site (the icon at the left of the address bar), ${TRY_AGAIN}.`,
  PermissionDeniedError: `The browser did not allow the microphone. Allow it for this site (the icon at the left of the address bar), ${TRY_AGAIN}.`,
  SecurityError: `The browser does not allow the microphone on this page. Allow it for this site, or ask your school's admin, ${TRY_AGAIN}.`,
  NotReadableError: `The microphone could not be used: another program may be using it, or the computer's privacy settings block it. Close the other program or allow the browser in the settings, ${TRY_AGAIN}.`,
  TrackStartError: `The microphone could not be used: another program may be using it, or the computer's privacy settings block it. Close the other program or allow the browser in the settings, ${TRY_AGAIN}.`,
  AbortError: `The microphone stopped before dictation could start. Check that it is plugged in, ${TRY_AGAIN}.`,
};

/** No `navigator.mediaDevices`: the browser offers a microphone only on https (or localhost). */
export const INSECURE_PAGE_MESSAGE =
  "This browser offers no microphone on this page: dictation needs the site to be opened over https. Ask your school's admin to serve Markbook over https.";

export const GENERIC_FAILURE_MESSAGE = `Dictation could not start in this browser. Check the microphone, ${TRY_AGAIN}, or type the comment.`;

/** The sentence for a failure to start dictation: a microphone failure by name, a server refusal as it is, anything else in general words. */
export function dictationStartFailureMessage(failure: unknown): string {
  const name = typeof failure === "object" && failure !== null && "name" in failure ? String(failure.name) : "";
  if (Object.hasOwn(MICROPHONE_FAILURES, name)) return MICROPHONE_FAILURES[name]!;
  // The server's answers (a dictation key refused, say) are AppError sentences already.
  if (name === "TRPCClientError" && failure instanceof Error && failure.message) return failure.message;
  return GENERIC_FAILURE_MESSAGE;
}

/** Whether this browser can ask for a microphone here at all (an http page other than localhost cannot). */
export const microphoneReachable = () => typeof navigator !== "undefined" && typeof navigator.mediaDevices?.getUserMedia === "function";
