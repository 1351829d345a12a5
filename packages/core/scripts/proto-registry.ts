// The repository's proto/ folder, compiled by the pinned protoc (npm package
// `protoc`: binary and google/protobuf includes ship inside it, nothing is
// downloaded) into a descriptor registry. Node-only, for code generation and
// tests: core's ProtoJSON field table is generated from it, and tests parse
// JSON strictly against it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DescMessage, FileRegistry, JsonValue } from '@bufbuild/protobuf';
import { createFileRegistry, fromBinary, fromJson } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's proto/ folder. */
export const PROTO_DIR = resolve(packageDir, '../../proto');

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return protoFiles(path);
    return name.endsWith('.proto') ? [relative(PROTO_DIR, path).split('\\').join('/')] : [];
  });
}

/** The FileDescriptorSet of every .proto under proto/ (with imports), as protoc writes it. */
export function protoDescriptorSet(): Uint8Array {
  const require = createRequire(join(packageDir, 'package.json'));
  const protocPackage = dirname(require.resolve('protoc/package.json'));
  const out = mkdtempSync(join(tmpdir(), 'taskwire-proto-'));
  try {
    const file = join(out, 'set.binpb');
    execFileSync(process.execPath, [
      join(protocPackage, 'protoc.cjs'),
      '--include_imports',
      `--descriptor_set_out=${file}`,
      `--proto_path=${PROTO_DIR}`,
      `--proto_path=${join(protocPackage, 'include')}`,
      ...protoFiles(PROTO_DIR).sort(),
    ]);
    return new Uint8Array(readFileSync(file));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

let cached: FileRegistry | undefined;

/** A registry of every message, enum and service under proto/ (built once per process). */
export function protoRegistry(): FileRegistry {
  cached ??= createFileRegistry(fromBinary(FileDescriptorSetSchema, protoDescriptorSet()));
  return cached;
}

/** The descriptor of a message type by its full name (`lf.a2a.v1.AgentCard`); throws when proto/ has none. */
export function protoMessage(typeName: string): DescMessage {
  const message = protoRegistry().getMessage(typeName);
  if (!message) throw new Error(`proto/ declares no message ${typeName}`);
  return message;
}

/**
 * Parses `json` as the ProtoJSON of `typeName` the strict way: an unknown
 * field, a value of the wrong type or an unknown enum name throws, naming it.
 */
export function parseProtoJsonStrictly(typeName: string, json: unknown): void {
  fromJson(protoMessage(typeName), json as JsonValue, { registry: protoRegistry(), ignoreUnknownFields: false });
}
