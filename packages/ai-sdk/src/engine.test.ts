import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('the Node these tests run on', () => {
  it('is the one the published package.json names in engines (publishConfig.engines; the AI SDK 7 needs Node 22)', () => {
    const { publishConfig } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { publishConfig: { engines: { node: string } } };
    const needed = Number(/>=\s*(\d+)/.exec(publishConfig.engines.node)![1]);
    expect(needed).toBe(22);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(needed);
  });
});
