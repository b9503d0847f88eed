import fc from "fast-check";

/**
 * Hostile input for the fuzz tests (fast-check arbitraries): the values a careless or malicious client
 * sends. Shared by the REST and the /v1 fuzz so both try the same classes of input.
 */

/** FUZZ_SEED picks another run (printed on failure); FUZZ_CASES asks for more cases than the default. */
export function fuzzSettings(defaultCases: number) {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261124;
  const cases = process.env.FUZZ_CASES ? Number(process.env.FUZZ_CASES) : defaultCases;
  if (!Number.isInteger(seed) || !Number.isInteger(cases) || cases < 1) throw new Error("FUZZ_SEED and FUZZ_CASES must be integers");
  return { seed, cases };
}

/** One UTF-16 unit of trouble: C0 controls (NUL first), DEL, lone surrogates, bidi overrides, plus plain text. */
const troublesomeUnit = fc.oneof(
  fc.constant("\u0000"),
  fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.constantFrom("\u007f", "\u0085", "\u2028", "\u202e", "\ufeff", "\uffff"),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom("a", "Z", "7", " ", "é", "😀", "/", "\\", "%", "'", '"', "."),
);

const MEGABYTE = 1024 * 1024;

/** Strings with control characters, lone surrogates, look-alike numbers, and sizes up to 1 MB. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: troublesomeUnit, minLength: 1, maxLength: 12 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x\udfff",
      "",
      "   ",
      "NaN",
      "Infinity",
      "-Infinity",
      "1e999",
      "-0",
      "2147483648",
      "9007199254740993",
      "__proto__",
      "constructor",
      "null",
      "true",
      "../../../etc/passwd",
      "%00",
      "\r\nX-Injected: 1",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(MEGABYTE), "\u0000".repeat(1024), "é".repeat(300_000)) },
);

/** Numbers at and beyond PostgreSQL's integer and JavaScript's safe integers, tiny, negative zero, decimals. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31),
    -(2 ** 31) - 1,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e308,
    -1e308,
    Number.MIN_VALUE,
    -0,
    0.1,
    1e-7,
    -1,
    999999.99,
    1_000_000,
    99_999_999.99,
    1.005,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const deeplyNested = (depth: number, open: string, close: string) => open.repeat(depth) + close.repeat(depth);

/**
 * A JSON value as raw text, so that it can carry what JSON.stringify cannot write: 1e999 (Infinity once
 * parsed), digits beyond any integer, raw control characters, nesting deep enough to break a recursive
 * reader.
 */
export const hostileJsonToken: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: hostileString.map((value) => JSON.stringify(value)) },
  { weight: 4, arbitrary: hostileNumber.map((value) => (Object.is(value, -0) ? "-0" : String(value))) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("1e999", "-1e999", "1e-999", "-0.0", "123456789012345678901234567890", "0.000000000000000000001", "2147483648.0"),
  },
  { weight: 3, arbitrary: fc.constantFrom("null", "true", "false", "[]", "{}", "[1,2]", '{"a":1}', '[""]', '[null]', '"a\u0000b"') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      deeplyNested(200, "[", "]"),
      deeplyNested(100_000, "[", "]"),
      deeplyNested(5_000, '{"a":', "}").replace(/\}$/, "1}"),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"polluted":1}}}') },
);

/** A whole body that is not the JSON object a route wants. */
export const hostileWholeBody: fc.Arbitrary<string> = fc.oneof(
  hostileJsonToken,
  fc.constantFrom(
    "",
    " ",
    "{",
    "not json",
    "\ufeff{}",
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    "[".repeat(10_000),
    "\u0000",
    "{}" + " ".repeat(MEGABYTE),
  ),
);

/** Content types a JSON route should refuse (or read as JSON and refuse what it holds). */
export const wrongContentType = fc.constantFrom(
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=xyz",
  "application/json; charset=utf-16",
  "application/xml",
  "image/png",
  "",
);
