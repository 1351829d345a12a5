import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// One project per workspace package; tests run against sibling packages'
// TypeScript sources through the `source` export condition (no build needed).
const roots = ['packages', 'examples']
  .flatMap((dir) => readdirSync(dir).map((name) => `${dir}/${name}`))
  .filter((root) => existsSync(`${root}/package.json`));

export default defineConfig({
  resolve: { conditions: ['@taskwire/source'] },
  ssr: { resolve: { conditions: ['@taskwire/source'], externalConditions: ['@taskwire/source'] } },
  test: {
    projects: [
      ...roots.map((root) => ({
        extends: true as const,
        test: {
          name: root.split('/')[1]!,
          root,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          testTimeout: 20_000,
        },
      })),
      {
        extends: true as const,
        test: { name: 'docs', root: '.', include: ['scripts/**/*.test.ts'], testTimeout: 120_000, globalSetup: ['scripts/docs-global-setup.ts'] },
      },
    ],
  },
});
