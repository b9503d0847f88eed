/** What POST /api/exam/files answers. */
export interface UploadedFile {
  id: string;
  page_count: number | null;
  original_name: string | null;
  byte_size: number;
}

/**
 * Uploads a PDF to /api/exam/files with the session cookie. XMLHttpRequest rather than fetch: only
 * it reports upload progress. Rejects with the server's `detail` sentence when it refuses the file.
 */
export function uploadPdf(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<UploadedFile> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/api/exam/files");
    request.responseType = "json";
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status === 201) {
        onProgress(1);
        resolve(request.response as UploadedFile);
        return;
      }
      const detail = (request.response as { detail?: string } | null)?.detail;
      reject(new Error(detail ?? `The upload failed (HTTP ${request.status}). Try again.`));
    };
    request.onerror = () => reject(new Error("The upload did not reach the server. Check your connection and try again."));
    request.onabort = () => reject(new Error("The upload was cancelled."));
    signal?.addEventListener("abort", () => request.abort());
    const form = new FormData();
    form.append("file", file, file.name);
    request.send(form);
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
