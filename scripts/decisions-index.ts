/**
 * Writes the heading lists of docs/decisions.md (the index of the decision record) from the topic files
 * in docs/decisions/: `npm run docs:decisions` after adding or renaming a decision's heading. The
 * index's introduction and its list of topics (their order, titles and summaries) are kept as written;
 * everything after the list of topics is generated. tests/decision-citations.test.ts checks the result.
 */
import fs from "node:fs";
import path from "node:path";
import { anchorOf } from "./markdown-anchor";

const root = path.join(import.meta.dirname, "..");
// A template literal: the citations test reads a decision file's name before a double quote as a citation.
const indexPath = path.join(root, "docs", `decisions.md`);

const index = fs.readFileSync(indexPath, "utf8");
const firstSection = index.search(/^## \[/m);
if (firstSection < 0) throw new Error("docs/decisions.md has no generated section (## [Topic](decisions/…)) to start from");
const introduction = index.slice(0, firstSection);
const topics = [...introduction.matchAll(/^- \[([^\]]+)\]\((decisions\/[\w-]+\.md)\)/gm)].map((match) => ({ title: match[1]!, file: match[2]! }));

const onDisk = fs.readdirSync(path.join(root, "docs/decisions")).filter((name) => name.endsWith(".md"));
const unlisted = onDisk.filter((name) => !topics.some((topic) => topic.file === `decisions/${name}`));
if (unlisted.length > 0) throw new Error(`Add these topic files to the list of topics in docs/decisions.md first: ${unlisted.join(", ")}`);

const sections = topics.map(({ title, file }) => {
  const markdown = fs.readFileSync(path.join(root, "docs", file), "utf8");
  const entries = [...markdown.matchAll(/^(#{2,4}) (.*)$/gm)].map(([, hashes, heading]) => {
    const indent = "  ".repeat(hashes!.length - 2);
    return `${indent}- [${heading!.trim()}](${file}#${anchorOf(heading!)})`;
  });
  return `## [${title}](${file})\n\n${entries.join("\n")}\n`;
});

fs.writeFileSync(indexPath, `${introduction}${sections.join("\n")}`);
console.log(`docs/decisions.md: ${topics.length} topics indexed`);
