/** Thrown when the job's client has gone: between windows, and at every decoding step (token-picker.ts). */
export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}
