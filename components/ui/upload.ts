/**
 * Posts a multipart form to one of Markbook's upload routes with the session cookie. XMLHttpRequest
 * rather than fetch: only it reports upload progress. Resolves with the JSON reply of a 200/201;
 * rejects with the server's `detail` sentence when the file is refused, or with a sentence of its own
 * when the request never arrives or is cancelled through `signal`.
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
      if (request.status === 200 || request.status === 201) {
        onProgress(1);
        resolve(request.response as Reply);
        return;
      }
      const detail = (request.response as { detail?: string } | null)?.detail;
      reject(new Error(detail ?? `The upload failed (HTTP ${request.status}). Try again.`));
    };
    request.onerror = () => reject(new Error("The upload did not reach the server. Check your connection and try again."));
    request.onabort = () => reject(new Error("The upload was cancelled."));
    signal?.addEventListener("abort", () => request.abort());
    request.send(form);
  });
}

/** A file size as people read it: 512 B, 340 kB, 12.5 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
