/**
 * Files the server makes on request (printed scripts, sign-in slips): a POST with the session cookie,
 * the reply saved under the name the server gives it. Rejects with the server's sentence when it refuses,
 * or with `failure` when the server fails or cannot be reached.
 */
export async function postForDownload(
  url: string,
  body: unknown,
  { failure, fallbackName }: { failure: string; fallbackName: string },
): Promise<{ fileName: string; headers: Headers }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new Error("The server could not be reached. Check your connection and try again.");
  }
  if (!response.ok) {
    const detail = response.status < 500 ? ((await response.json().catch(() => null)) as { detail?: string } | null)?.detail : undefined;
    throw new Error(detail ?? failure);
  }
  const fileName = attachmentName(response.headers.get("content-disposition")) ?? fallbackName;
  saveBlob(await response.blob(), fileName);
  return { fileName, headers: response.headers };
}

/** The file name of `Content-Disposition`: RFC 6266's UTF-8 `filename*` when given, else `filename`. */
function attachmentName(disposition: string | null): string | null {
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
function saveBlob(blob: Blob, fileName: string) {
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
