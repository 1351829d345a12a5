// The shell commands of the docs: every line of their ```sh / ```bash
// blocks, a line ending in `\` joined with the next, comment lines dropped
// and a trailing `# comment` cut off (outside quotes), so that each command
// is what a user would paste.

/** One command of a document, as a user would paste it. */
export interface DocCommand {
  /** The document's path from the repository root. */
  readonly doc: string;
  readonly command: string;
}

/** `line` without a trailing ` # comment` (a `#` outside quotes, after a space). */
export function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** The commands of shell text (a block, or lines printed by a program): continuations joined, comments dropped. */
export function commandsOf(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = withoutComment(raw.trim());
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trimEnd()} `;
      continue;
    }
    const command = (pending + line).trim();
    pending = '';
    if (command !== '') out.push(command);
  }
  return out;
}

const BLOCK = /^[ \t]*```(?:sh|bash|shell)\n([\s\S]*?)^[ \t]*```/gm;

/** The commands of a Markdown document's ```sh / ```bash / ```shell blocks, in order. */
export function docCommands(doc: string, markdown: string): DocCommand[] {
  return [...markdown.matchAll(BLOCK)].flatMap((match) => commandsOf(match[1]!).map((command) => ({ doc, command })));
}

/** The commands a program printed after `heading` (its "Try:" lines), up to `end`, as a user would paste them. */
export function printedCommands(output: string, heading: string, end: string): string[] {
  const from = output.indexOf(heading);
  if (from < 0) throw new Error(`no "${heading}" in:\n${output}`);
  const to = output.indexOf(end, from);
  return commandsOf(output.slice(from + heading.length, to < 0 ? undefined : to));
}
