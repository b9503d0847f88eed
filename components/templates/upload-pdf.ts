import { uploadWithProgress } from "@/components/ui/upload";

/** What POST /api/exam/files answers. */
export interface UploadedFile {
  id: string;
  page_count: number | null;
  original_name: string | null;
  byte_size: number;
}

/** Uploads a PDF to /api/exam/files, reporting progress; cancelled through `signal`. */
export function uploadPdf(file: File, onProgress: (fraction: number) => void, signal?: AbortSignal): Promise<UploadedFile> {
  const form = new FormData();
  form.append("file", file, file.name);
  return uploadWithProgress<UploadedFile>("/api/exam/files", form, onProgress, signal);
}
