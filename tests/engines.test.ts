/**
 * The Node versions Markbook says it supports (package.json's engines, README, .ci/run) are versions every
 * installed dependency accepts, so `npm install` on a supported Node prints no EBADENGINE: the lowest
 * version of each supported line, and the Node running the tests, satisfy every package's engines.node.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** npm's own version arithmetic (semver is in node_modules through npm's and many packages' dependencies). */
const semver = createRequire(import.meta.url)("semver") as {
  minVersion(range: string): { version: string } | null;
  validRange(range: string): string | null;
  satisfies(version: string, range: string): boolean;
};

const root = path.resolve(import.meta.dirname, "..");
const own = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { engines: { node: string; npm: string } };
const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };

/** Every installed package's engines.node, by "name@version". */
function installedEngines(): Map<string, string> {
  const ranges = new Map<string, string>();
  for (const folder of Object.keys(lock.packages)) {
    const manifest = path.join(root, folder, "package.json");
    if (!folder || !fs.existsSync(manifest)) continue; // another platform's optional package
    const pkg = JSON.parse(fs.readFileSync(manifest, "utf8")) as { name: string; version: string; engines?: { node?: unknown } };
    if (typeof pkg.engines?.node === "string") ranges.set(`${pkg.name}@${pkg.version}`, pkg.engines.node);
  }
  return ranges;
}

describe("the supported Node versions", () => {
  it("are accepted by every installed dependency, from the lowest of each supported line to the Node running this", () => {
    const lowest = own.engines.node.split("||").map((range) => semver.minVersion(range.trim())!.version);
    expect(lowest).toEqual(["20.19.0", "22.13.0", "24.0.0"]);
    const ranges = installedEngines();
    expect(ranges.size).toBeGreaterThan(50);
    for (const version of [...lowest, process.versions.node]) {
      const refusing = [...ranges].filter(([, range]) => semver.validRange(range) && !semver.satisfies(version, range)).map(([name, range]) => `${name} (${range})`);
      expect(refusing, `packages whose engines refuse Node ${version}`).toEqual([]);
    }
    expect(semver.satisfies(process.versions.node, own.engines.node), `this Node ${process.version} is not in engines`).toBe(true);
  });

  it("are what the README and CI say", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme).toContain("Node.js 20.19 or a later 20.x, 22.13 or later, or 24 and later");
    expect(readme).toContain("npm 11.19 or later");
    const ci = fs.readFileSync(path.join(root, ".ci", "run"), "utf8");
    expect(ci).toContain("(major === 20 && minor >= 19) || (major === 22 && minor >= 13) || major >= 24");
    expect(own.engines.npm).toBe(">=11.19");
  });
});
