import type { Artifact, Message, Part, Role } from '../schema/index.js';
import type { V03Artifact, V03Message, V03Part, V03Role, V03Struct } from './v03-types.js';
import { badV03Param, compact, isRecord, nonEmpty } from './v03-util.js';

type Path = readonly (string | number)[];

/**
 * The metadata flag that marks a v0.3 data part wrapping a non-object v1.0
 * value as `{ value }` (v0.3 data parts must be objects). The same key is
 * used by the a2a-python and a2a-js compatibility layers, so wrapped values
 * survive a trip through them.
 */
export const DATA_PART_COMPAT_FLAG = 'data_part_compat';

const ROLE_TO_V1: Readonly<Record<string, Role>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT', ROLE_USER: 'ROLE_USER', ROLE_AGENT: 'ROLE_AGENT' };

/** `ROLE_USER` → `user`, `ROLE_AGENT` → `agent`. */
export function roleToV03(role: Role): V03Role {
  return role === 'ROLE_AGENT' ? 'agent' : 'user';
}

/** `user` → `ROLE_USER`, `agent` → `ROLE_AGENT` (v1.0 names pass); anything else is InvalidParams at `path`. */
export function roleToV1(role: unknown, path: Path = ['role']): Role {
  const v1 = typeof role === 'string' ? ROLE_TO_V1[role] : undefined;
  if (!v1) throw badV03Param(path, `must be "user" or "agent" (got ${JSON.stringify(role)})`);
  return v1;
}

/** A v1.0 part as a v0.3 part. Text `mediaType`/`filename` have no v0.3 field and are dropped. */
export function partToV03(part: Part): V03Part {
  const metadata = part.metadata;
  if ('text' in part) return compact({ kind: 'text' as const, text: part.text, metadata });
  if ('raw' in part || 'url' in part) {
    const content = 'raw' in part ? { bytes: part.raw } : { uri: part.url };
    return compact({ kind: 'file' as const, file: compact({ ...content, mimeType: part.mediaType, name: part.filename }), metadata });
  }
  if (isRecord(part.data)) return compact({ kind: 'data' as const, data: part.data, metadata });
  return { kind: 'data', data: { value: part.data }, metadata: { ...metadata, [DATA_PART_COMPAT_FLAG]: true } };
}

/**
 * A v0.3 part as a v1.0 part. The discriminator is `kind` (or the legacy
 * `type`); a part without one is read by its content keys, so v1.0 parts
 * pass unchanged. Files may carry `bytes` (or `fileWithBytes`, or `data` as in
 * the v0.3 spec's streaming example) or `uri` (or `fileWithUri`).
 */
export function partToV1(part: unknown, path: Path = ['part']): Part {
  if (!isRecord(part)) throw badV03Param(path, 'a part must be an object');
  const kind = part.kind ?? part.type ?? ('file' in part ? 'file' : undefined);
  const metadata = isRecord(part.metadata) ? part.metadata : undefined;
  if (kind === undefined) return part as Part;
  if (kind === 'text') {
    if (typeof part.text !== 'string') throw badV03Param([...path, 'text'], 'a text part needs a string `text`');
    return compact({ text: part.text, metadata });
  }
  if (kind === 'file') return fileToV1(part.file, metadata, [...path, 'file']);
  if (kind === 'data') return dataToV1(part.data, metadata, [...path, 'data']);
  throw badV03Param([...path, 'kind'], `must be "text", "file" or "data" (got ${JSON.stringify(kind)})`);
}

function fileToV1(file: unknown, metadata: V03Struct | undefined, path: Path): Part {
  if (!isRecord(file)) throw badV03Param(path, 'a file part needs a `file` object with `bytes` or `uri`');
  const bytes = file.bytes ?? file.fileWithBytes ?? file.data;
  const uri = file.uri ?? file.fileWithUri;
  if ((typeof bytes === 'string') === (typeof uri === 'string')) {
    throw badV03Param(path, 'a file needs exactly one of `bytes` (base64) or `uri`');
  }
  const content = typeof bytes === 'string' ? { raw: bytes } : { url: uri as string };
  return compact({ ...content, mediaType: nonEmpty(file.mimeType ?? file.mediaType), filename: nonEmpty(file.name ?? file.filename), metadata });
}

function dataToV1(data: unknown, metadata: V03Struct | undefined, path: Path): Part {
  if (data === undefined) throw badV03Param(path, 'a data part needs `data`');
  if (metadata?.[DATA_PART_COMPAT_FLAG] === true && isRecord(data) && 'value' in data) {
    const { [DATA_PART_COMPAT_FLAG]: _flag, ...rest } = metadata;
    // `data` stays even when null: a wrapped v1.0 null is a real value.
    return { data: data.value, ...(Object.keys(rest).length > 0 && { metadata: rest }) } as Part;
  }
  return { data, ...(metadata && { metadata }) } as Part;
}

function partsToV1(parts: unknown, path: Path): Part[] {
  return Array.isArray(parts) ? parts.map((p, i) => partToV1(p, [...path, i])) : (parts as Part[]);
}

/** A v1.0 message as a v0.3 message (`kind: "message"`, lowercase role, v0.3 parts). */
export function messageToV03(message: Message): V03Message {
  return compact({
    kind: 'message' as const,
    messageId: message.messageId,
    role: roleToV03(message.role),
    parts: message.parts.map(partToV03),
    contextId: nonEmpty(message.contextId),
    taskId: nonEmpty(message.taskId),
    referenceTaskIds: message.referenceTaskIds?.length ? message.referenceTaskIds : undefined,
    extensions: message.extensions?.length ? message.extensions : undefined,
    metadata: message.metadata,
  });
}

/**
 * A v0.3 message as a v1.0 message. Shapes are converted, not validated
 * (the service validates params); a role or part v0.3 cannot name is
 * InvalidParams at its `path`. Null and empty ids count as absent.
 */
export function messageToV1(message: unknown, path: Path = ['message']): Message {
  if (!isRecord(message)) return message as Message;
  return compact({
    messageId: message.messageId as string,
    role: message.role === undefined ? undefined : roleToV1(message.role, [...path, 'role']),
    parts: partsToV1(message.parts, [...path, 'parts']),
    contextId: nonEmpty(message.contextId),
    taskId: nonEmpty(message.taskId),
    referenceTaskIds: message.referenceTaskIds as string[] | undefined,
    extensions: message.extensions as string[] | undefined,
    metadata: message.metadata as V03Struct | undefined,
  }) as Message;
}

/** A v1.0 artifact as a v0.3 artifact. */
export function artifactToV03(artifact: Artifact): V03Artifact {
  return compact({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: artifact.parts.map(partToV03),
    metadata: artifact.metadata,
    extensions: artifact.extensions?.length ? artifact.extensions : undefined,
  });
}

/** A v0.3 artifact as a v1.0 artifact (parts converted). */
export function artifactToV1(artifact: unknown, path: Path = ['artifact']): Artifact {
  if (!isRecord(artifact)) return artifact as Artifact;
  return compact({
    artifactId: artifact.artifactId as string,
    name: artifact.name as string | undefined,
    description: artifact.description as string | undefined,
    parts: partsToV1(artifact.parts, [...path, 'parts']),
    metadata: artifact.metadata as V03Struct | undefined,
    extensions: artifact.extensions as string[] | undefined,
  });
}
