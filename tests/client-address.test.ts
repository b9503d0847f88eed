import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAddressOf } from "../server/auth/client-address";

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join("."));

describe("the client address a sign-in is counted by", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    fc.assert(
      fc.property(ipv4, fc.option(fc.string(), { nil: undefined }), (peer, forwarded) => {
        expect(clientAddressOf(peer, forwarded, 0)).toBe(peer);
        expect(clientAddressOf(`::ffff:${peer}`, forwarded, 0)).toBe(peer);
      }),
    );
  });

  it("behind N trusted proxies, is the entry the outermost one added: never one the client wrote before it", () => {
    fc.assert(
      fc.property(fc.array(ipv4, { maxLength: 5 }), fc.array(ipv4, { minLength: 1, maxLength: 4 }), ipv4, (forgedByClient, addedByProxies, peer) => {
        // The client sends any X-Forwarded-For it likes; each trusted proxy appends the address it saw.
        const header = [...forgedByClient, ...addedByProxies].join(", ");
        expect(clientAddressOf(peer, header, addedByProxies.length)).toBe(addedByProxies[0]);
      }),
    );
  });

  it("is null when nothing is known", () => {
    expect(clientAddressOf(undefined, undefined, 0)).toBeNull();
    expect(clientAddressOf(undefined, "", 2)).toBeNull();
  });
});
