// The ```ts blocks of a README, with what running them needs, from HTML
// comments (invisible on GitHub and npmjs.com):
//   <!-- readme-examples: an agent at 127.0.0.1:8080 -->   (anywhere: every
//       example of the README talks to the reference agent at that port)
//   <!-- readme-example: serves "ready text" -->            (before a block:
//       it runs in the background, ready once it prints the text, and stays
//       up while the next blocks run, until the next such block)
//   <!-- readme-example: needs a database -->               (before a block:
//       it gets DATABASE_URL, a PostgreSQL database of its README's own)
//   <!-- readme-examples: node 22 -->                       (anywhere: the
//       README's examples run on Node 22 or newer, see scripts/node22.mjs)
// (both at once: <!-- readme-example: serves "text"; needs a database -->)

/** One ```ts block and how to run it. */
export interface Example {
  /** The README's path from the repository root, and the block's 0-based index in it. */
  readonly readme: string;
  readonly index: number;
  readonly code: string;
  /** Set for a block that serves: the text it prints once it is ready. */
  readonly serves: string | undefined;
  readonly needsDatabase: boolean;
}

/** A README's examples and what they share. */
export interface ReadmeExamples {
  readonly readme: string;
  readonly examples: readonly Example[];
  /** The port of the reference agent the examples talk to, when the README says so. */
  readonly agentPort: number | undefined;
  /** The Node major the examples need when it is newer than the one running the tests (`<!-- readme-examples: node 22 -->`). */
  readonly nodeMajor: number | undefined;
}

const BLOCK = /(?:<!-- readme-example: ([^>]*?) -->\s*\n)?```ts\n([\s\S]*?)```/g;

/** Parses the examples of one README. */
export function examplesOf(readme: string, markdown: string): ReadmeExamples {
  const examples: Example[] = [];
  for (const match of markdown.matchAll(BLOCK)) {
    const parts = (match[1] ?? '').split(';').map((part) => part.trim()).filter(Boolean);
    let serves: string | undefined;
    let needsDatabase = false;
    for (const part of parts) {
      const text = /^serves "(.+)"$/.exec(part)?.[1];
      if (text !== undefined) serves = text;
      else if (part === 'needs a database') needsDatabase = true;
      else throw new Error(`${readme}: unknown readme-example marker "${part}" (serves "text"; needs a database)`);
    }
    examples.push({ readme, index: examples.length, code: match[2]!, serves, needsDatabase });
  }
  const agent = /<!-- readme-examples: an agent at 127\.0\.0\.1:(\d+) -->/.exec(markdown);
  const node = /<!-- readme-examples: node (\d+) -->/.exec(markdown);
  return { readme, examples, agentPort: agent ? Number(agent[1]) : undefined, nodeMajor: node ? Number(node[1]) : undefined };
}

/** A file name for an example: the README's folder (or a doc's path) and the block's index (`packages-core-2`, `docs-hosting-hono-0`). */
export function exampleName(example: Example): string {
  const folder = example.readme === 'README.md' ? 'root' : example.readme.replace(/\/README\.md$/, '').replace(/\.md$/, '').replace(/\//g, '-');
  return `${folder}-${example.index}`;
}
