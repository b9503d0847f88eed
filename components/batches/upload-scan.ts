import { uploadWithProgress } from "@/components/ui/upload";

/** A submission as POST /api/exam/batches/{id}/scans answers it (dates as JSON strings). */
export interface UploadedScan {
  id: string;
  student_id: string | null;
  student_name: string | null;
  /** Whether a student is named on it; an anonymous batch sends no name, only the script's number. */
  has_student: boolean;
  script_number: number;
  status: "absent" | "unmatched" | "matched" | "marking" | "complete";
}

export type ScanMatching = { method: "ordered" } | { method: "manual"; studentId: string };

/** Posts one scan to the batch, matched to a student in order or by hand, reporting progress. */
export function uploadScan(batchId: string, file: File, matching: ScanMatching, onProgress: (fraction: number) => void): Promise<UploadedScan> {
  const form = new FormData();
  form.append("matching_method", matching.method);
  if (matching.method === "manual") form.append("student_id", matching.studentId);
  // The browser may not know the type of a file dragged from some places; the server checks the bytes too.
  form.append("file", file.type ? file : new File([file], file.name, { type: "application/pdf" }), file.name);
  return uploadWithProgress<UploadedScan>(`/api/exam/batches/${batchId}/scans`, form, onProgress);
}

/** A scanned pile as POST /api/exam/batches/{id}/piles answers it: queued, to be read by a job. */
export interface UploadedPile {
  id: string;
  status: string;
}

/** Posts one scanned pile of printed scripts (any number of scripts, any order) to the batch. */
export function uploadPile(batchId: string, file: File, onProgress: (fraction: number) => void): Promise<UploadedPile> {
  const form = new FormData();
  form.append("file", file.type ? file : new File([file], file.name, { type: "application/pdf" }), file.name);
  return uploadWithProgress<UploadedPile>(`/api/exam/batches/${batchId}/piles`, form, onProgress);
}
