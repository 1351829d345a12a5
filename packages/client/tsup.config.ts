import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared.js';

export default defineConfig(packageBuild({ 'index': 'src/index.ts', 'grpc': 'src/grpc.ts', 'ws': 'src/ws.ts', 'cli': 'src/cli.ts' }));
