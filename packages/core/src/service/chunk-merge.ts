import type { AgentEvent } from '../agent/events.js';
import type { Artifact, Part, Struct } from '../schema/index.js';

/** An artifact event as an agent emits it. */
export type ArtifactChunk = Extract<AgentEvent, { kind: 'artifact' }>;

/** True when `part` is text that may be joined with its neighbour: no metadata or file name of its own. */
function joinable(part: Part): part is Part & { text: string } {
  return 'text' in part && part.metadata === undefined && part.filename === undefined;
}

/** Adds `part` to `parts`, joining it with the last one when both are plain text of the same media type. */
function addPart(parts: Part[], part: Part): void {
  const last = parts[parts.length - 1];
  if (last !== undefined && joinable(last) && joinable(part) && last.mediaType === part.mediaType) {
    parts[parts.length - 1] = last.mediaType === undefined ? { text: last.text + part.text } : { text: last.text + part.text, mediaType: last.mediaType };
  } else {
    parts.push(part);
  }
}

/**
 * One artifact event with the effect of `chunks` applied in order: the
 * first chunk of one artifact followed by chunks that append to it (the
 * last of which alone may be the `lastChunk`). Applying the result gives
 * the task the same artifact, text and fields as applying the chunks one
 * by one, except that adjacent plain text parts are one part: the
 * artifact's fields and metadata merge as the reducer merges appended
 * chunks (later keys win), and so does the events' metadata. Builds new
 * objects: the chunks are not changed.
 */
export function mergeChunks(chunks: readonly ArtifactChunk[]): ArtifactChunk {
  const first = chunks[0]!;
  if (chunks.length === 1) return first;
  const parts: Part[] = [];
  let fields: Omit<Artifact, 'parts'> = { artifactId: first.artifact.artifactId };
  let artifactMetadata: Struct | undefined;
  let metadata: Struct | undefined;
  for (const chunk of chunks) {
    const { parts: chunkParts, metadata: chunkArtifactMetadata, ...rest } = chunk.artifact;
    fields = { ...fields, ...rest };
    if (chunkArtifactMetadata !== undefined) artifactMetadata = { ...artifactMetadata, ...chunkArtifactMetadata };
    if (chunk.metadata !== undefined) metadata = { ...metadata, ...chunk.metadata };
    for (const part of chunkParts) addPart(parts, part);
  }
  const artifact: Artifact = artifactMetadata === undefined ? { ...fields, parts } : { ...fields, parts, metadata: artifactMetadata };
  return {
    kind: 'artifact',
    artifact,
    append: first.append,
    lastChunk: chunks[chunks.length - 1]!.lastChunk,
    metadata,
    coalesce: first.coalesce,
  };
}
