import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COST, timeoutFor } from "./support/busy-machine";

const tsx = path.resolve("node_modules/.bin/tsx");
const bundle = path.resolve("tests/fixtures/roster/oneroster-riverside.zip");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-cli-import-"));

/** The real CLI in a child process, on its own embedded database. */
function markbook(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(tsx, ["scripts/markbook.ts", ...args], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "error" } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("npm run markbook -- user import", () => {
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it(
    "previews with --dry-run, imports, and a second import of the same bundle changes nothing; names a bad file or institute",
    async () => {
      const created = await markbook(["institute", "create", "--name", "CLI Riverside"]);
      expect(created, created.stderr).toMatchObject({ code: 0 });
      const institute = created.stdout.trim();

      const dryRun = await markbook(["user", "import", "--institute", institute, bundle, "--dry-run"]);
      expect(dryRun, dryRun.stderr).toMatchObject({ code: 0 });
      expect(dryRun.stdout).toContain("Dry run: nothing was written.\nPeople: 9 created, 0 updated, 0 unchanged, 3 skipped\n");
      expect(dryRun.stdout).toContain(`users.csv row 12 (Nadia Haddad): unknown role "parent": Markbook has no parent accounts`);

      const imported = await markbook(["user", "import", "--institute", institute, bundle]);
      expect(imported.stdout).toContain("Imported.\nPeople: 9 created, 0 updated, 0 unchanged, 3 skipped\nClasses: 2 created, 0 updated, 0 unchanged; 7 enrollments added\n");
      const again = await markbook(["user", "import", "--institute", institute, bundle]);
      expect(again.stdout).toContain("People: 0 created, 0 updated, 9 unchanged, 3 skipped\nClasses: 0 created, 0 updated, 2 unchanged; 0 enrollments added\n");

      const missing = await markbook(["user", "import", "--institute", institute, "no-such-file.csv"]);
      expect(missing).toMatchObject({ code: 1, stderr: "markbook: no-such-file.csv: cannot be read (ENOENT)\n" });
      // A file over the import limit is refused by its size, never read whole (a sparse 3 GB file).
      const huge = path.join(dataDir, "huge.csv");
      fs.writeFileSync(huge, "");
      fs.truncateSync(huge, 3 * 1024 ** 3);
      const tooLarge = await markbook(["user", "import", "--institute", institute, huge]);
      expect(tooLarge.code).toBe(1);
      expect(tooLarge.stderr).toMatch(/The import is larger than 5 MB: split it into smaller files\n$/);
      fs.rmSync(huge);
      const noFile = await markbook(["user", "import", "--institute", institute]);
      expect(noFile.stderr).toMatch(/^markbook: user import: give one FILE \(usage: user import --institute ID FILE/);
      const unknown = await markbook(["user", "import", "--institute", "7f9c4a52-0000-4000-8000-000000000000", bundle]);
      expect(unknown.stderr).toBe("markbook: --institute 7f9c4a52-0000-4000-8000-000000000000: no institute with this id\n");
    },
    timeoutFor(COST.cliFirstRun + 7 * COST.cliRun),
  );
});
