// Preloaded by `bun test` (drivers.test.ts): core's conformance suites import
// `describe`, `it` and `expect` from vitest; under Bun they are bun:test's.
interface PluginBuild {
  module(specifier: string, load: () => { exports: Record<string, unknown>; loader: 'object' }): void;
}
declare const Bun: { plugin(plugin: { name: string; setup(build: PluginBuild): void }): void };

const specifier = 'bun:test';
const bunTest = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
Bun.plugin({
  name: 'vitest as bun:test',
  setup(build) {
    build.module('vitest', () => ({ exports: { ...bunTest }, loader: 'object' }));
  },
});
