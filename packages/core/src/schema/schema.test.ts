import { describe, expect, it } from 'vitest';
import { PartSchema, StreamResponseSchema } from './index.js';

describe('PartSchema', () => {
  it('accepts exactly one content field', () => {
    expect(PartSchema.parse({ text: 'hi', mediaType: 'text/plain' })).toEqual({ text: 'hi', mediaType: 'text/plain' });
  });
  it('rejects two content fields', () => {
    expect(PartSchema.safeParse({ text: 'hi', url: 'http://x' }).success).toBe(false);
  });
  it('stream response ignores unknown keys but needs one payload', () => {
    expect(StreamResponseSchema.safeParse({ foo: 1 }).success).toBe(false);
  });
});
