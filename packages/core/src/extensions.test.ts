import { describe, expect, it } from 'vitest';
import type { Agent } from './agent/agent.js';
import { A2AError } from './errors.js';
import { ExtensionActivation, forwardableExtensions, parseExtensionsHeader, requireExtensions } from './extensions.js';
import type { AgentCard } from './schema/index.js';
import { TaskService } from './service/task-service.js';
import { createMemoryTaskStore } from './store/memory-store.js';

const A = 'https://example.com/ext/a/v1';
const B = 'https://example.com/ext/b/v1';

const card: AgentCard = {
  name: 'x',
  description: 'x',
  version: '1',
  supportedInterfaces: [{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true, extensions: [{ uri: A }, { uri: B, required: true }] },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};

const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] });

describe('A2A-Extensions values', () => {
  it('parses comma-separated lists over several lines, trimmed, each URI once', () => {
    expect(parseExtensionsHeader(` ${A} , ,${B}`)).toEqual([A, B]);
    expect(parseExtensionsHeader([A, `${B},${A}`])).toEqual([A, B]);
    expect(parseExtensionsHeader(' , ')).toBeUndefined();
    expect(parseExtensionsHeader(undefined)).toBeUndefined();
  });
});

describe('ExtensionActivation', () => {
  it('activates only requested URIs, once each, until sealed', async () => {
    const activation = new ExtensionActivation([A, B]);
    expect(activation.activate('https://example.com/other')).toBe(false);
    expect(activation.activate(B)).toBe(true);
    expect(activation.activate(B)).toBe(true);
    const sealed = activation.whenSealed();
    expect(activation.seal()).toEqual([B]);
    await sealed;
    expect(activation.activate(A)).toBe(false);
    expect(activation.activated).toEqual([B]);
  });
});

describe('required extensions', () => {
  it('names every missing required URI in an ExtensionSupportRequired error', () => {
    expect(() => requireExtensions(card, [A])).toThrowError(expect.objectContaining({ kind: 'ExtensionSupportRequired', code: -32008, metadata: { extensions: B } }));
    expect(() => requireExtensions(card, [B])).not.toThrow();
    expect(() => requireExtensions(undefined, undefined)).not.toThrow();
  });

  it('refuses every operation but GetExtendedAgentCard before anything runs', async () => {
    let runs = 0;
    const agent: Agent = async (ctx) => {
      runs++;
      await ctx.complete();
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent, card });
    const refused = (call: Promise<unknown>) => call.then(() => undefined, (error: unknown) => (A2AError.is(error) ? error.kind : error));
    expect(await refused(service.unary('SendMessage', { message: message() }, { extensions: [A] }))).toBe('ExtensionSupportRequired');
    expect(await refused(service.stream('SendStreamingMessage', { message: message() }))).toBe('ExtensionSupportRequired');
    expect(await refused(service.unary('GetTask', { id: 'nope' }))).toBe('ExtensionSupportRequired');
    expect(await refused(service.unary('GetExtendedAgentCard', {}))).toBe('UnsupportedOperation');
    expect(runs).toBe(0);
    await service.unary('SendMessage', { message: message() }, { extensions: [B] });
    expect(runs).toBe(1);
  });
});

describe('activation in a run', () => {
  it('is decided at the agent first event: a later activate returns false and is not reported', async () => {
    const results: boolean[] = [];
    const agent: Agent = async (ctx) => {
      results.push(ctx.extensions.activate(A));
      await ctx.working();
      results.push(ctx.extensions.activate(B));
      await ctx.complete();
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent });
    const activation = new ExtensionActivation([A, B]);
    await service.unary('SendMessage', { message: message() }, { extensions: [A, B], activation });
    expect(results).toEqual([true, false]);
    expect(activation.seal()).toEqual([A]);
  });

  it('shows the requested URIs to the agent even when the transport reports nothing', async () => {
    let seen: readonly string[] = [];
    const agent: Agent = async (ctx) => {
      seen = ctx.extensions.requested;
      await ctx.complete();
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent });
    await service.unary('SendMessage', { message: message() }, { extensions: [A] });
    expect(seen).toEqual([A]);
  });
});

describe('forwardableExtensions', () => {
  it('keeps the requested URIs the callee declares, in the requested order', () => {
    expect(forwardableExtensions(['https://example.com/other', B, A], card)).toEqual([B, A]);
    expect(forwardableExtensions([A], undefined)).toEqual([]);
  });
});
