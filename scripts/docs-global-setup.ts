import { join } from 'node:path';
import { buildStalePackages } from './publishable.mjs';

/**
 * The `docs` project's global setup: builds the publishable packages whose
 * build is missing or stale once, before its test files run side by side
 * (they pack, install and publish those builds; building in each at once
 * would race on dist/).
 */
export default function setup(): void {
  buildStalePackages(join(import.meta.dirname, '..'));
}
