// The package's own tests import the helpers from here; they are published as `@taskwire/postgres/testing`.
export * from './testing.js';
