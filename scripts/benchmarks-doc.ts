import fs from "node:fs";

const FILE = "docs/benchmarks.md";

/**
 * Replaces the text between `<!-- name -->` and `<!-- /name -->` in docs/benchmarks.md with `body`, so
 * each benchmark rewrites only its own figures. A section seen for the first time is appended after
 * `intro` (its heading and what it measures).
 */
export function writeBenchmarkSection(name: string, body: string, intro = ""): void {
  const text = fs.existsSync(FILE) ? fs.readFileSync(FILE, "utf8") : "# Benchmarks\n";
  const start = `<!-- ${name} -->`;
  const end = `<!-- /${name} -->`;
  const block = `${start}\n${body}\n${end}`;
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`);
  const introBlock = intro ? `${intro.trimEnd()}\n\n` : "";
  fs.writeFileSync(FILE, pattern.test(text) ? text.replace(pattern, () => block) : `${text.trimEnd()}\n\n${introBlock}${block}\n`);
  console.log(`Wrote ${FILE} (${name}).`);
}
