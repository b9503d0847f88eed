/**
 * The pdf.js worker of the marking screen, started by the screen as soon as it mounts: the worker's
 * script (about 1.2 MB) then downloads and compiles while the queue, the template and the scan's bytes
 * load, instead of after pdf.js itself has loaded. Browser only.
 */
let port: Worker | null = null;

export function pdfWorkerPort(): Worker {
  // Served by the app from the bundle (no CDN); a module worker, as pdf.js would start it itself.
  port ??= new Worker(new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString(), { type: "module", name: "markbook-scans" });
  return port;
}
