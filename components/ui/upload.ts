/**
 * Why an upload failed, in a sentence for the person uploading, and whether sending the same file
 * again could work: yes for the network, a server error or 429 (too many requests at once); no for a
 * refusal of the file itself (400, 403, 404, 409, 413, 415…), which only a different file or action fixes.
 */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    /** How the server suggests sending the same file instead (its Markbook-Upload-Instead header: "pile"), or null. */
    readonly uploadInstead: string | null = null,
  ) {
    super(message);
    this.name = "UploadError";
  }
}

/** Statuses after which the same upload may succeed later. */
const isTransientStatus = (status: number) => status >= 500 || status === 429;

/**
 * Posts a multipart form to one of Markbook's upload routes with the session cookie. XMLHttpRequest
 * rather than fetch: only it reports upload progress. Resolves with the JSON reply of a 200/201/202;
 * rejects with an UploadError: the server's `detail` sentence when the file is refused, or a sentence
 * of its own when the request never arrives or is cancelled through `signal`.
 */
export function uploadWithProgress<Reply>(url: string, form: FormData, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", url);
    request.responseType = "json";
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      // 202: accepted for work that goes on after the reply (a scanned pile is read by a job).
      if (request.status === 200 || request.status === 201 || request.status === 202) {
        onProgress(1);
        resolve(request.response as Reply);
        return;
      }
      const transient = isTransientStatus(request.status);
      const detail = (request.response as { detail?: string } | null)?.detail;
      // A 5xx's own words are no use to a person (and a proxy's may be HTML); a refusal's are the reason.
      const reason = transient
        ? "The server could not take the file just now. Try again in a moment."
        : (detail ?? "The server refused the file.");
      reject(new UploadError(reason, transient, transient ? null : request.getResponseHeader("Markbook-Upload-Instead")));
    };
    request.onerror = () => reject(new UploadError("The upload did not reach the server. Check your connection and try again.", true));
    request.onabort = () => reject(new UploadError("The upload was cancelled.", true));
    signal?.addEventListener("abort", () => request.abort());
    request.send(form);
  });
}

/** A file size as people read it (the server's messages use the same formatter). */
export { formatByteSize as formatBytes } from "@/lib/rules/byte-size";
