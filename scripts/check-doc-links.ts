// npm run lint:docs: every relative link of README.md and docs/*.md resolves. A `](path)` must name an
// existing file or folder; a `](#anchor)` or `](file.md#anchor)` must name a heading of that Markdown
// file, by GitHub's rule (lower case, punctuation dropped, spaces to hyphens, -1, -2... for repeats).
// Links inside fenced code blocks are not links. Exits 1 listing each broken link with its line.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { processIo, writeLine, type CliEnv, type CliIo } from "@/lib/background/cli-io";

const REPO = path.resolve(__dirname, "..");

/** GitHub's anchor for a heading's text: takes the text after the `#`s, returns the slug (no repeat suffix). */
export function headingSlug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, "")
    .replace(/ /g, "-");
}

/** The lines of `markdown` outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: string; number: number }[] {
  let fenced = false;
  return markdown.split("\n").flatMap((line, index) => {
    if (line.startsWith("```")) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, number: index + 1 }];
  });
}

/** Every anchor a Markdown text's headings define, repeats numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of proseLines(markdown)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]);
    const repeats = seen.get(slug);
    seen.set(slug, (repeats ?? -1) + 1);
    anchors.add(repeats === undefined ? slug : `${slug}-${repeats + 1}`);
  }
  return anchors;
}

/**
 * Checks the relative links of `files` (paths relative to `root`). Takes the root folder and the
 * Markdown files; returns one message per broken link ("file:line: target (why)"), empty when all resolve.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(readFileSync(path.join(root, file), "utf8")));
    return anchorCache.get(file)!;
  };
  const broken: string[] = [];
  for (const file of files) {
    for (const { line, number } of proseLines(readFileSync(path.join(root, file), "utf8"))) {
      for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = match[1];
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
        const [target, anchor] = link.split("#", 2) as [string, string | undefined];
        const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
        if (resolved.startsWith("..") || !existsSync(path.join(root, resolved))) {
          broken.push(`${file}:${number}: ${link} (no such file)`);
          continue;
        }
        if (anchor !== undefined && (!resolved.endsWith(".md") || !anchorsIn(resolved).has(anchor))) {
          broken.push(`${file}:${number}: ${link} (no heading #${anchor} in ${resolved})`);
        }
      }
    }
  }
  return broken;
}

/**
 * `npm run lint:docs`: takes the arguments (none), the environment (unused: the repository's files are
 * the input) and the streams; resolves with 0 when every link of README.md and docs/*.md resolves, else
 * 1 after listing each broken one on stderr.
 */
export async function main(_argv: string[], _env: CliEnv, io: CliIo): Promise<number> {
  const files = ["README.md", ...readdirSync(path.join(REPO, "docs")).filter((name) => name.endsWith(".md")).sort().map((name) => `docs/${name}`)];
  const broken = brokenLinks(REPO, files);
  if (broken.length > 0) {
    writeLine(io.stderr, broken.join("\n"));
    return 1;
  }
  writeLine(io.stdout, `lint:docs: every relative link of ${files.length} Markdown files resolves`);
  return 0;
}

if (require.main === module) void main(process.argv.slice(2), process.env, processIo()).then((code) => (process.exitCode = code));
