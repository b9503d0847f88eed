import { postForDownload } from "@/components/ui/download-file";

/**
 * Downloads a batch's printed scripts (POST /api/exam/batches/{id}/printed-scripts): the PDF saved under
 * the name the server gives it. Rejects with the server's sentence when it refuses (no PDF on the
 * template, archived…), or a sentence of its own.
 */
export async function downloadPrintedScripts(batchId: string, request: { spare_copies: number }): Promise<{ fileName: string }> {
  const { fileName } = await postForDownload(`/api/exam/batches/${batchId}/printed-scripts`, request, {
    failure: "The scripts could not be made just now. Try again in a moment.",
    fallbackName: "scripts.pdf",
  });
  return { fileName };
}
