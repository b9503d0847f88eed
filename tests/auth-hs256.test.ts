import crypto from "node:crypto";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { verifyHs256Jwt } from "../server/auth/tokens";

// The node:crypto verifier of user tokens keeps the rules jose's jwtVerify applied before.
const secret = Buffer.from("a-test-secret-a-test-secret-a-test-secret");
const now = () => Math.floor(Date.now() / 1000);
const part = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/** A token signed by hand, so that header and claims can be anything. */
function handMade(header: unknown, claims: unknown, key = secret) {
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${crypto.createHmac("sha256", key).update(input).digest("base64url")}`;
}

const refusal = (token: string) => {
  try {
    verifyHs256Jwt(token, secret);
  } catch (error) {
    return (error as Error).message;
  }
  return "accepted";
};

describe("verifyHs256Jwt", () => {
  it("accepts what jose signs, and returns its claims", async () => {
    const token = await new SignJWT({ jti: "x" }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject("someone").setIssuedAt().setExpirationTime(now() + 60).sign(secret);
    expect(verifyHs256Jwt(token, secret)).toMatchObject({ sub: "someone", jti: "x" });
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() + 60, nbf: now() }))).toBe("accepted");
  });

  it("refuses another algorithm, alg none, and any crit or b64 header", () => {
    const claims = { sub: "someone", exp: now() + 60 };
    expect(refusal(handMade({ alg: "HS512" }, claims))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "none" }, claims))).toBe("Invalid token");
    expect(refusal(`${part({ alg: "none" })}.${part(claims)}.`)).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256", crit: ["exp"] }, claims))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256", b64: false }, claims))).toBe("Invalid token");
  });

  it("refuses a wrong signature, a changed payload, and characters outside base64url", () => {
    const token = handMade({ alg: "HS256" }, { sub: "someone", exp: now() + 60 });
    expect(refusal(handMade({ alg: "HS256" }, { sub: "someone", exp: now() + 60 }, Buffer.from("another secret")))).toBe("Invalid token");
    const [header, , signature] = token.split(".");
    expect(refusal(`${header}.${part({ sub: "admin", exp: now() + 60 })}.${signature}`)).toBe("Invalid token");
    expect(refusal(`${token}=`)).toBe("Invalid token");
    expect(refusal(`${token.slice(0, -1)}+`)).toBe("Invalid token");
    expect(refusal(token.split(".").slice(0, 2).join("."))).toBe("Invalid token");
    expect(refusal(`${token}.x`)).toBe("Invalid token");
  });

  it("refuses claims that are not a JSON object, and header or claims that are not JSON", () => {
    expect(refusal(handMade({ alg: "HS256" }, [1, 2]))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256" }, "not json"))).toBe("Invalid token");
    expect(refusal(handMade("not json", { exp: now() + 60 }))).toBe("Invalid token");
  });

  it("needs a numeric exp in the future, and a numeric nbf and iat when present", () => {
    expect(refusal(handMade({ alg: "HS256" }, { sub: "someone" }))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256" }, { exp: String(now() + 60) }))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() }))).toBe("Token has expired");
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() - 1 }))).toBe("Token has expired");
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() + 60, nbf: now() + 30 }))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() + 60, nbf: "soon" }))).toBe("Invalid token");
    expect(refusal(handMade({ alg: "HS256" }, { exp: now() + 60, iat: "today" }))).toBe("Invalid token");
  });
});
