import { describe, expect, it } from "vitest";
import { driftText, kappaText, percent, signedMarks } from "../components/moderation/agreement-format";

describe("how moderation statistics are written", () => {
  it("signs differences with a true minus and rounds to hundredths", () => {
    expect(signedMarks(0.2)).toBe("+0.2");
    expect(signedMarks(-2 / 3)).toBe("−0.67");
    expect(signedMarks(0.001)).toBe("0");
    expect(signedMarks(null)).toBe("–");
    expect(percent(0.4)).toBe("40%");
    expect(percent(2 / 3)).toBe("67%");
  });

  it("names kappa's band, or says why there is none, and words the drift", () => {
    expect(kappaText(0.8, null)).toEqual({ value: "0.80", words: "almost perfect" });
    expect(kappaText(2 / 3, null)).toEqual({ value: "0.67", words: "substantial" });
    expect(kappaText(-0.25, null)).toEqual({ value: "−0.25", words: "worse than chance" });
    expect(kappaText(null, "Fewer than two pairs")).toEqual({ value: "–", words: "Fewer than two pairs" });
    expect(driftText(3)).toBe("+3 per 10 scripts");
    expect(driftText(0.01)).toBe("steady");
    expect(driftText(null)).toBe("–");
  });
});
