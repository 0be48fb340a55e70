// Reading the repository's Markdown for the documentation tests: sections, shell blocks, links,
// and heading anchors as GitHub makes them.

/** The text under the `##` heading named `title`, up to the next heading of the same or a higher level. */
export function markdownSection(markdown: string, title: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, '') === title);
  if (start < 0) throw new Error(`no section "${title}"`);
  const level = lines[start]!.match(/^#+/)![0].length;
  const end = lines.findIndex((line, i) => i > start && new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The bodies of its fenced ```sh blocks, in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Every link target: `[text](target)` and `<scheme://…>`, outside code blocks and code spans. */
export function links(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/<([a-z]+:\/\/[^>\s]+)>/g)].map((m) => m[1]!),
  ];
}

/** The anchors GitHub gives a document's headings (lower case, punctuation dropped, spaces to hyphens). */
export function anchors(markdown: string): Set<string> {
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}
