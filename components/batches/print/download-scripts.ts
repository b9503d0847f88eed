/**
 * Downloads a batch's printed scripts (POST /api/exam/batches/{id}/printed-scripts, with the session
 * cookie): the PDF as a blob, saved under the name the server gives it. Rejects with the server's
 * sentence when it refuses (no PDF on the template, archived…), or a sentence of its own.
 */
export async function downloadPrintedScripts(batchId: string, request: { spare_copies: number }): Promise<{ fileName: string }> {
  let response: Response;
  try {
    response = await fetch(`/api/exam/batches/${batchId}/printed-scripts`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
      credentials: "same-origin",
    });
  } catch {
    throw new Error("The server could not be reached. Check your connection and try again.");
  }
  if (!response.ok) {
    const detail = response.status < 500 ? ((await response.json().catch(() => null)) as { detail?: string } | null)?.detail : undefined;
    throw new Error(detail ?? "The scripts could not be made just now. Try again in a moment.");
  }
  const fileName = attachmentName(response.headers.get("content-disposition")) ?? "scripts.pdf";
  saveBlob(await response.blob(), fileName);
  return { fileName };
}

/** The file name of `Content-Disposition`: RFC 6266's UTF-8 `filename*` when given, else `filename`. */
export function attachmentName(disposition: string | null): string | null {
  if (!disposition) return null;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded);
    } catch {
      // fall through to the plain name
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
}

/** Saves a blob as a download named `fileName` (a link clicked for the user). */
export function saveBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the click; the URL can go once the browser has taken it.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
