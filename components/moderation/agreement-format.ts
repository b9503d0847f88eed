/** How the moderation screens write the statistics (pure, tested in tests/moderation-format.test.ts). */

/** A mean difference with its sign ("+0.2", "−0.67", "0"): positive means the second marker gave more. */
export function signedMarks(value: number | null): string {
  if (value === null) return "–";
  const rounded = Math.round(value * 100) / 100;
  if (rounded === 0) return "0";
  return `${rounded > 0 ? "+" : "−"}${Math.abs(rounded)}`;
}

/** A share 0..1 as a whole percentage ("40%"). */
export function percent(value: number | null): string {
  return value === null ? "–" : `${Math.round(value * 100)}%`;
}

/** Kappa to two decimals with a word for it (Landis and Koch's bands), or why there is none. */
export function kappaText(kappa: number | null, note: string | null): { value: string; words: string } {
  if (kappa === null) return { value: "–", words: note ?? "Not enough pairs" };
  const words = kappa < 0 ? "worse than chance" : kappa < 0.2 ? "slight" : kappa < 0.4 ? "fair" : kappa < 0.6 ? "moderate" : kappa < 0.8 ? "substantial" : "almost perfect";
  return { value: kappa.toFixed(2).replace("-", "−"), words };
}

/** Drift per 10 scripts, in words: which way the second marker moves from the first over the session. */
export function driftText(drift: number | null): string {
  if (drift === null) return "–";
  const rounded = Math.round(drift * 100) / 100;
  if (Math.abs(rounded) < 0.05) return "steady";
  return `${signedMarks(rounded)} per 10 scripts`;
}
