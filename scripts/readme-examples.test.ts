import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

// Every ```ts block of the root README and of each package's README is
// type-checked against the packages' sources, as a user would write it.
const root = join(import.meta.dirname, '..');
const readmes = [
  'README.md',
  ...['packages', 'examples'].flatMap((dir) =>
    readdirSync(join(root, dir)).map((name) => `${dir}/${name}/README.md`),
  ),
].filter((path) => existsSync(join(root, path)));

// Each example is written inside the package whose README it is (the root
// README's into bench/, which depends on every package), so imports resolve
// as they would for a user of that package.
const homeOf = (readme: string) => join(root, readme === 'README.md' ? 'bench' : readme.replace(/\/README\.md$/, ''));
const outDirs = readmes.map((readme) => join(homeOf(readme), '.readme-examples'));
afterAll(() => {
  for (const dir of outDirs) rmSync(dir, { recursive: true, force: true });
});

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('README examples type-check', () => {
  for (const readme of readmes) {
    const code = blocks(readFileSync(join(root, readme), 'utf8'));
    if (code.length === 0) continue;
    it(`${readme}: ${code.length} example(s)`, () => {
      const dir = join(homeOf(readme), '.readme-examples');
      mkdirSync(dir, { recursive: true });
      const files = code.map((source, i) => {
        const file = join(dir, `example-${i}.ts`);
        writeFileSync(file, `${source}\nexport {};\n`);
        return file;
      });
      const configFile = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
      const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
      const program = ts.createProgram(files, { ...parsed.options, noEmit: true, module: ts.ModuleKind.NodeNext });
      const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file && files.includes(d.file.fileName));
      const text = diagnostics.map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      expect(text).toEqual([]);
    });
  }
});
