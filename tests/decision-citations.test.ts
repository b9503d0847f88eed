import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { anchorOf } from "../scripts/markdown-anchor";

/**
 * Comments cite the decision record as `docs/decisions.md "Heading"` and the contract as
 * `docs/spec/classroom-api.md "Heading"` (with a rule number for its numbered lists): these tests keep
 * every such citation pointing at text that exists, and keep docs/decisions.md (the index) in step with
 * the topic files under docs/decisions/, so neither can rot when a heading is renamed or moved.
 */

const root = path.resolve(import.meta.dirname, "..");
const sourceFolders = ["app", "components", "lib", "server", "scripts", "tests", "e2e", "drizzle", "docs"];
const sourceFiles = ["README.md", "eslint.config.js", "next.config.mjs", "server.ts"];
const skippedFolders = new Set(["node_modules", ".next", "fixtures", "decisions"]);
const textExtensions = /\.(ts|tsx|js|mjs|cjs|md|sql|css)$/;
const thisFile = path.relative(root, import.meta.filename);

function filesUnder(folder: string): string[] {
  const absolute = path.join(root, folder);
  if (!fs.existsSync(absolute)) return [];
  return fs.readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return skippedFolders.has(entry.name) ? [] : filesUnder(relative);
    return textExtensions.test(entry.name) ? [relative] : [];
  });
}

const scanned = [...sourceFolders.flatMap(filesUnder), ...sourceFiles.filter((file) => fs.existsSync(path.join(root, file)))].filter(
  // the decision record itself (its index shows the citation form) and this file
  (file) => file !== thisFile && file !== path.join("docs", "decisions.md"),
);

/** A file's text with line breaks inside comments joined, so a citation wrapped over two lines reads as one. */
const joinedText = (file: string) =>
  fs
    .readFileSync(path.join(root, file), "utf8")
    .replace(/\s*\n\s*(?:\*(?!\/)|\/\/|--)?\s*/g, " ");

const collapse = (text: string) => text.replace(/\s+/g, " ").trim();
const plain = (text: string) => collapse(text.replace(/`/g, "")).toLowerCase();

interface Citation {
  file: string;
  document: string;
  quoted: string;
  rules: number[];
}

/** Every `<document> "…"` citation in the scanned files, where document is a decision file or a spec file. */
function citationsOf(documentPattern: string): Citation[] {
  const pattern = new RegExp(`(${documentPattern})\\)?,?\\s*\\(?"([^"]{1,200})"(?:\\s+(\\d+)(?:\\s*[–-]\\s*(\\d+))?)?`, "g");
  return scanned.flatMap((file) =>
    [...joinedText(file).matchAll(pattern)].map((match) => {
      const first = match[3] === undefined ? [] : [Number(match[3])];
      const last = match[4] === undefined ? first : [Number(match[4])];
      return { file, document: match[1]!, quoted: collapse(match[2]!), rules: [...new Set([...first, ...last])] };
    }),
  );
}

const headingsOf = (markdown: string) =>
  markdown
    .split("\n")
    .map((line) => /^#{1,6} (.*)$/.exec(line)?.[1])
    .filter((heading): heading is string => heading !== undefined);

const decisionsFolder = path.join(root, "docs/decisions");
const topicFiles = fs
  .readdirSync(decisionsFolder)
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/decisions/${name}`);
const topicHeadings = new Map(
  topicFiles.map((file) => [file, headingsOf(fs.readFileSync(path.join(root, file), "utf8")).slice(1)] as const), // the file's title aside
);
const index = fs.readFileSync(path.join(root, "docs/decisions.md"), "utf8");
const indexEntries = [...index.matchAll(/\[([^\]]+)\]\((decisions\/[\w-]+\.md)#([^)]+)\)/g)].map((match) => ({
  text: match[1]!,
  file: `docs/${match[2]!}`,
  anchor: match[3]!,
}));

describe("citations of the decision record", () => {
  const citations = citationsOf("decisions(?:/[\\w-]+)?\\.md");

  it("are found (the scan reads the code's comments)", () => {
    expect(citations.length).toBeGreaterThanOrEqual(15);
  });

  it("each name a heading of the decision record", () => {
    const unknown = citations.filter(({ document, quoted }) => {
      // docs/decisions.md is the index: a heading of any topic file (which the next test holds it to)
      const headings = document.startsWith("decisions/") ? (topicHeadings.get(`docs/${document}`) ?? []) : [...topicHeadings.values()].flat();
      return !headings.some((heading) => plain(heading).includes(plain(quoted)));
    });
    expect(unknown.map(({ file, document, quoted }) => `${file}: ${document} "${quoted}"`)).toEqual([]);
  });

  it("the index lists every heading of every topic file, once, with a link that reaches it", () => {
    const listed = new Set(indexEntries.map((entry) => `${entry.file}#${entry.anchor}`));
    const missing = [...topicHeadings].flatMap(([file, headings]) =>
      headings.filter((heading) => !listed.has(`${file}#${anchorOf(heading)}`)).map((heading) => `${file}: ${heading}`),
    );
    expect(missing).toEqual([]);
    const dangling = indexEntries.filter((entry) => !(topicHeadings.get(entry.file) ?? []).some((heading) => anchorOf(heading) === entry.anchor));
    expect(dangling.map((entry) => `${entry.file}#${entry.anchor}`)).toEqual([]);
    expect(indexEntries.length).toBe(new Set(indexEntries.map((entry) => `${entry.file}#${entry.anchor}`)).size);
  });

  it("no two decisions share a heading (an anchor would be ambiguous)", () => {
    const all = [...topicHeadings.values()].flat().map(anchorOf);
    expect(all.filter((anchor, i) => all.indexOf(anchor) !== i)).toEqual([]);
  });
});

describe("citations of the contract (docs/spec)", () => {
  const citations = citationsOf("docs/spec/[\\w-]+\\.md");

  it("are found", () => {
    expect(citations.length).toBeGreaterThanOrEqual(30);
  });

  it("each name a heading, or a numbered list's lead-in, of the file they cite, and rules that list has", () => {
    const wrong = citations.filter(({ document, quoted, rules }) => {
      const file = path.join(root, document);
      if (!fs.existsSync(file)) return true;
      const lines = fs.readFileSync(file, "utf8").split("\n");
      const at = lines.findIndex((line) => {
        const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
        return heading !== undefined ? plain(heading) === plain(quoted) : plain(line).startsWith(plain(quoted));
      });
      if (at < 0) return true;
      const listStart = lines.findIndex((line, i) => i > at && /^\d+\. /.test(line));
      const numbers: number[] = [];
      for (let i = listStart; i >= 0 && i < lines.length && /^\d+\. /.test(lines[i]!); i++) numbers.push(Number(/^(\d+)\./.exec(lines[i]!)![1]));
      return rules.some((rule) => !numbers.includes(rule));
    });
    expect(wrong.map(({ file, document, quoted, rules }) => `${file}: ${document} "${quoted}" ${rules.join("–")}`)).toEqual([]);
  });
});
