import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One project per workspace package; tests run against sibling packages'
// TypeScript sources through the `source` export condition (no build needed).
const roots = ['packages', 'examples']
  .flatMap((dir) => readdirSync(dir).map((name) => `${dir}/${name}`))
  .filter((root) => existsSync(`${root}/package.json`));

// Packages whose published engines need Node 22 (the AI SDK 7;
// `publishConfig.engines`, see .pnpmfile.cjs), the workspace packages
// that depend on one, and packages whose own tests need it, run, on an older Node, in a child vitest on Node 22
// (scripts/node22-projects.check.ts).
const manifests = new Map(roots.map((root) => [root, JSON.parse(readFileSync(`${root}/package.json`, 'utf8'))]));
const rootOf = new Map([...manifests].map(([root, pkg]) => [pkg.name as string, root]));
const needsNode22 = (root: string): boolean => {
  const pkg = manifests.get(root);
  if (/^>=\s*22\b/.test(pkg.publishConfig?.engines?.node ?? pkg.engines?.node ?? '')) return true;
  return Object.keys(pkg.dependencies ?? {}).some((dep) => rootOf.has(dep) && rootOf.get(dep) !== root && needsNode22(rootOf.get(dep)!));
};
// A package whose own tests need Node 22 (`"taskwire": { "testsNeedNode": 22 }`: @taskwire/sqlite's node:sqlite
// driver) runs there too, while what depends on it stays on the running Node (it runs on Node 20 otherwise).
const testsNeedNode22 = (root: string): boolean => (manifests.get(root).taskwire?.testsNeedNode ?? 0) >= 22;
const onNode22 = Number(process.versions.node.split('.')[0]) >= 22;
const deferred = onNode22 ? [] : roots.filter((root) => needsNode22(root) || testsNeedNode22(root));
const nameOf = (root: string) => root.split('/')[1]!;

export default defineConfig({
  resolve: { conditions: ['@taskwire/source'] },
  ssr: { resolve: { conditions: ['@taskwire/source'], externalConditions: ['@taskwire/source'] } },
  test: {
    projects: [
      ...roots.filter((root) => !deferred.includes(root)).map((root) => ({
        extends: true as const,
        test: {
          name: nameOf(root),
          root,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          testTimeout: 20_000,
        },
      })),
      ...(deferred.length === 0
        ? []
        : [{ extends: true as const, test: { name: 'node22', root: '.', include: ['scripts/node22-projects.check.ts'], testTimeout: 600_000, env: { TASKWIRE_NODE22_PROJECTS: deferred.map(nameOf).join(',') } } }]),
      {
        extends: true as const,
        test: { name: 'docs', root: '.', include: ['scripts/**/*.test.ts'], testTimeout: 120_000, globalSetup: ['scripts/docs-global-setup.ts'] },
      },
    ],
  },
});
