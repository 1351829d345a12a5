import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

export default defineConfig(packageBuild({ index: 'src/index.ts', file: 'src/file.ts', push: 'src/push.ts', testing: 'src/testing.ts' }));
