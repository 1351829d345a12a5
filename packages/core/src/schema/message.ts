import * as z from 'zod';
import { IdSchema, isWithinJsonDepth, oneof, StructSchema, TOO_DEEP_MESSAGE } from './common.js';

const partFields = {
  metadata: StructSchema.optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
};

/** A text part: `{ text }`. */
export const TextPartSchema = z.object({ text: z.string(), ...partFields });
/** Inline bytes: `{ raw }`, base64 in JSON (proto `bytes`). */
export const RawPartSchema = z.object({ raw: z.string().base64(), ...partFields });
/** A file by reference: `{ url }`. */
export const UrlPartSchema = z.object({ url: z.string().min(1), ...partFields });
/** Structured data: `{ data }`, any JSON value (proto `google.protobuf.Value`) nested at most `MAX_JSON_DEPTH` levels. */
export const DataPartSchema = z.object({
  // `abort`: when no member matches, zod reports the one member whose issues
  // are not aborting; without it `{ text: 42 }` would fail as "data is required".
  data: z
    .unknown()
    .refine((v) => v !== undefined, { message: 'data is required', abort: true })
    .refine(isWithinJsonDepth, { message: TOO_DEEP_MESSAGE }),
  ...partFields,
});

/**
 * One part of a message or artifact: exactly one of `text`, `raw`, `url` or
 * `data` (the proto `oneof content`), plus optional `metadata`, `filename`
 * and `mediaType`. A part with none or several content fields is rejected.
 */
export const PartSchema = oneof(
  'a part',
  ['text', 'raw', 'url', 'data'],
  z.union([TextPartSchema, RawPartSchema, UrlPartSchema, DataPartSchema]),
);
/** One part: text, raw bytes, url or data. */
export type Part = z.infer<typeof PartSchema>;
/** A text part. */
export type TextPart = z.infer<typeof TextPartSchema>;
/** A data part. */
export type DataPart = z.infer<typeof DataPartSchema>;

/** `ROLE_USER` (from the client) or `ROLE_AGENT` (from the server). */
export const RoleSchema = z.enum(['ROLE_USER', 'ROLE_AGENT']);
/** Who sent a message. */
export type Role = z.infer<typeof RoleSchema>;

/** One turn of communication between client and agent. `parts` is never empty. */
export const MessageSchema = z.object({
  messageId: IdSchema,
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: RoleSchema,
  parts: z.array(PartSchema).min(1, 'a message needs at least one part'),
  metadata: StructSchema.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(IdSchema).optional(),
});
/** A message (v1.0 wire shape). */
export type Message = z.infer<typeof MessageSchema>;

/** An output produced by a task. `parts` is never empty. */
export const ArtifactSchema = z.object({
  artifactId: IdSchema,
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema).min(1, 'an artifact needs at least one part'),
  metadata: StructSchema.optional(),
  extensions: z.array(z.string()).optional(),
});
/** An artifact (v1.0 wire shape). */
export type Artifact = z.infer<typeof ArtifactSchema>;
