import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MessageSchema, PartSchema, StreamResponseSchema } from './index.js';

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

describe('free-form JSON nesting (MAX_JSON_DEPTH)', () => {
  const nested = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
    return value;
  };
  const message = (extra: object) => ({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], ...extra });

  it('accepts metadata and data parts nested exactly MAX_JSON_DEPTH levels', () => {
    expect(MessageSchema.safeParse(message({ metadata: { x: nested(MAX_JSON_DEPTH - 1) } })).success).toBe(true);
    expect(MessageSchema.safeParse(message({ parts: [{ data: nested(MAX_JSON_DEPTH) }] })).success).toBe(true);
  });

  it('refuses deeper values with an issue naming the field, without running out of stack', () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 100_000]) {
      const metadata = MessageSchema.safeParse(message({ metadata: { x: nested(levels - 1) } }));
      expect(metadata.success).toBe(false);
      expect(metadata.error?.issues[0]).toMatchObject({ path: ['metadata'], message: expect.stringContaining('levels deep') });
      const data = MessageSchema.safeParse(message({ parts: [{ data: nested(levels) }] }));
      expect(data.success).toBe(false);
      expect(JSON.stringify(data.error?.issues)).toContain('levels deep');
    }
  });
});
