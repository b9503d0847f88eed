/** A submission as POST /api/exam/batches/{id}/scans answers it (dates as JSON strings). */
export interface UploadedScan {
  id: string;
  student_id: string | null;
  student_name: string | null;
  status: "absent" | "unmatched" | "matched" | "marking" | "complete";
}

export type ScanMatching = { method: "ordered" } | { method: "manual"; studentId: string };

/**
 * Posts one scan to the batch with the session cookie. XMLHttpRequest rather than fetch: only it
 * reports upload progress. Rejects with the server's `detail` sentence when the file is refused.
 */
export function uploadScan(batchId: string, file: File, matching: ScanMatching, onProgress: (fraction: number) => void): Promise<UploadedScan> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `/api/exam/batches/${batchId}/scans`);
    request.responseType = "json";
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      if (request.status === 200 || request.status === 201) {
        onProgress(1);
        resolve(request.response as UploadedScan);
        return;
      }
      const detail = (request.response as { detail?: string } | null)?.detail;
      reject(new Error(detail ?? `The upload failed (HTTP ${request.status}). Try again.`));
    };
    request.onerror = () => reject(new Error("The upload did not reach the server. Check your connection and try again."));
    const form = new FormData();
    form.append("matching_method", matching.method);
    if (matching.method === "manual") form.append("student_id", matching.studentId);
    // The browser may not know the type of a file dragged from some places; the server checks the bytes too.
    form.append("file", file.type ? file : new File([file], file.name, { type: "application/pdf" }), file.name);
    request.send(form);
  });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
