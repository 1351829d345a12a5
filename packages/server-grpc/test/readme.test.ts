import { readFileSync } from 'node:fs';
import { expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../examples/quickstart.ts', import.meta.url), 'utf8');

it('the README quick start is examples/quickstart.ts, word for word', () => {
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBe(example);
});

it('the quick start runs: serves an agent over gRPC and gets its answer', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  // Importing it runs it once: it prints the answer.
  const { quickstart } = await import('../examples/quickstart.js');
  expect(log).toHaveBeenCalledWith('You said: hello');
  expect(await quickstart()).toBe('You said: hello');
  expect(log).toHaveBeenCalledWith('agent card entry:', expect.objectContaining({ protocolBinding: 'GRPC', protocolVersion: '1.0' }));
});
