import fc from "fast-check";
import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { decodePageCode, encodePageCode, isBatchCode, newBatchCode } from "../server/exam/intake/print-code";

const batchCode = fc.constantFrom(...Array.from({ length: 50 }, () => newBatchCode()));
const pageCode = fc.record({ batchCode, scriptNumber: fc.integer({ min: 1, max: 9999 }), page: fc.integer({ min: 1, max: 999 }) });

describe("the QR text of a printed page", () => {
  it("decodes to what was encoded, for any batch, script and page", () => {
    fc.assert(
      fc.property(pageCode, (code) => {
        expect(decodePageCode(encodePageCode(code))).toEqual({ kind: "page", ...code });
      }),
    );
  });

  it("fits a version-1 QR code at level M for a class set (scripts and pages below 100)", () => {
    const text = encodePageCode({ batchCode: newBatchCode(), scriptNumber: 99, page: 99 });
    expect(QRCode.create(text, { errorCorrectionLevel: "M" }).version).toBe(1);
  });

  it("refuses any single changed character as damaged, never as another page", () => {
    fc.assert(
      fc.property(pageCode, fc.nat(), fc.constantFrom(..."0123456789ABCDEFGHJKMNPQRSTVWXYZ:"), (code, at, replacement) => {
        const text = encodePageCode(code);
        const index = 4 + (at % (text.length - 4));
        fc.pre(text[index] !== replacement);
        const altered = text.slice(0, index) + replacement + text.slice(index + 1);
        const decoded = decodePageCode(altered);
        // A 10-bit check lets about 1 in 1,000 alterations through; those must at least be well formed.
        if (decoded.kind === "page") expect(encodePageCode(decoded)).toBe(altered);
        else expect(decoded.kind).toBe("damaged");
      }),
      { numRuns: 2000 },
    );
  });

  it("tells other QR codes from damaged Markbook ones", () => {
    expect(decodePageCode("https://example.org/paper")).toEqual({ kind: "other" });
    expect(decodePageCode("MB1:garbage")).toEqual({ kind: "damaged" });
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(["other", "damaged"]).toContain(decodePageCode(text).kind);
      }),
    );
  });

  it("refuses to encode what it could not decode", () => {
    expect(() => encodePageCode({ batchCode: "ILOU00", scriptNumber: 1, page: 1 })).toThrow(RangeError);
    expect(() => encodePageCode({ batchCode: newBatchCode(), scriptNumber: 0, page: 1 })).toThrow(RangeError);
    expect(() => encodePageCode({ batchCode: newBatchCode(), scriptNumber: 1, page: 1000 })).toThrow(RangeError);
    expect(isBatchCode(newBatchCode())).toBe(true);
  });
});
