import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../examples/reference-agent/src/serve-all.js';
import { serveAll } from '../examples/reference-agent/src/serve-all.js';
import { CLASSIFIED } from './readme-commands/classified.js';
import type { DocCommand } from './readme-commands/extract.js';
import { docCommands } from './readme-commands/extract.js';
import type { Databases } from './readme-commands/databases.js';
import { freshDatabases } from './readme-commands/databases.js';
import { runDoc } from './readme-commands/runner.js';
import { publishablePackages } from './publishable.mjs';

// Every shell command of the docs (the ```sh / ```bash blocks of the root
// README, RELEASING.md, SECURITY.md, the packages' and examples' READMEs),
// run as written on this machine with Node and npm, from the clone: each is
// classified in readme-commands/classified.ts (run, serve, or not run and
// why); a command no one classified fails the first test. The agents they
// start print "Try:" lines, which run too (no auth, --api-key, an OpenID
// provider), and so does the test OpenID provider's banner. docs/production.md
// is run by scripts/production-runbook.test.ts.
const root = join(import.meta.dirname, '..');
const database = process.env.TASKWIRE_TEST_DATABASE_URL;

const docs = [
  'README.md',
  'RELEASING.md',
  'SECURITY.md',
  ...['packages', 'examples'].flatMap((dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}/README.md`)),
  ...(existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md') && f !== 'production.md').map((f) => `docs/${f}`) : []),
].filter((path) => existsSync(join(root, path)));
const commands = new Map<string, DocCommand[]>(docs.map((doc) => [doc, docCommands(doc, readFileSync(join(root, doc), 'utf8'))]));

describe('the shell commands of the docs', () => {
  it('are each classified (run, serve, or not run and why), and the list names no command the docs lost', () => {
    const unclassified = [...commands.values()].flat().filter(({ doc, command }) => CLASSIFIED[doc]?.[command] === undefined);
    expect(unclassified, 'add these to scripts/readme-commands/classified.ts, after a review').toEqual([]);
    const stale = Object.entries(CLASSIFIED).flatMap(([doc, entries]) =>
      Object.keys(entries)
        .filter((command) => !(commands.get(doc) ?? []).some((c) => c.command === command))
        .map((command) => ({ doc, command })),
    );
    expect(stale, 'no document has these any more: remove them from classified.ts').toEqual([]);
  });

  it('RELEASING.md names every publishable package', () => {
    const releasing = readFileSync(join(root, 'RELEASING.md'), 'utf8');
    const intro = releasing.slice(0, releasing.indexOf('## '));
    expect(publishablePackages(root).filter(({ name }) => !intro.includes(`\`${name}\``)).map(({ name }) => name)).toEqual([]);
  });

  describe('run as written', () => {
    let agent: RunningAgent;
    let databases: Databases;
    beforeAll(async () => {
      if (database === undefined) throw new Error('TASKWIRE_TEST_DATABASE_URL is needed: the READMEs start agents on PostgreSQL (bash scripts/start-postgres.sh)');
      agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
      databases = freshDatabases(root, database);
    });
    afterAll(async () => {
      await agent?.close();
      await databases?.close();
    });

    for (const doc of docs) {
      const runnable = (commands.get(doc) ?? []).filter(({ command }) => CLASSIFIED[doc]?.[command]?.kind !== 'skip');
      if (runnable.length === 0) continue;
      it(`${doc}: ${runnable.length} commands, and the Try: lines of the agents they start`, async () => {
        await runDoc(commands.get(doc)!, CLASSIFIED[doc]!, { root, agentPort: Number(new URL(agent.baseUrl).port), database: () => databases.create('tw_doc_commands') });
      }, 900_000);
    }
  });
});
