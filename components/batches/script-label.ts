/**
 * A script made from a scanned pile carries its printed code (`MB1:<batch code>:<script>`, the
 * submission's qr_code): "Script 21" says which printed script it is, spare copies included.
 */
export function printedScriptNumber(qrCode: string | null): number | null {
  const match = /^MB1:[0-9A-Z]{6}:(\d{1,4})$/.exec(qrCode ?? "");
  return match ? Number(match[1]) : null;
}
