import type { A2AError, Agent, AgentContext, AgentEvent, ArtifactInit, ArtifactOptions, Part, RefuseOptions, Say, StatusOptions } from '@taskwire/core';
import * as build from '@taskwire/core';

/**
 * `agent` with every event it emits (through a helper, `emit`, or a
 * generator's `yield`) passed through `change` first: the way an extension
 * adds fields to the messages and artifacts an agent sends without the
 * agent knowing. `change` gets the event and returns the one to emit.
 */
export function mapEvents(agent: Agent, change: (event: AgentEvent, ctx: AgentContext) => AgentEvent): Agent {
  return (ctx) => {
    const emit = (event: AgentEvent) => ctx.emit(change(event, ctx));
    const wrapped: AgentContext = {
      task: ctx.task,
      message: ctx.message,
      referencedTasks: ctx.referencedTasks,
      principal: ctx.principal,
      isContinuation: ctx.isContinuation,
      extensions: ctx.extensions,
      signal: ctx.signal,
      text: ctx.text,
      emit,
      reply: (message: Say) => emit(build.reply(message)),
      working: (message?: Say, options?: StatusOptions) => emit(build.working(message, options)),
      artifact: (init: ArtifactInit, options?: ArtifactOptions) => emit(build.artifact(init, options)),
      inputRequired: (message: Say, options?: StatusOptions) => emit(build.inputRequired(message, options)),
      authRequired: (message: Say, options?: StatusOptions) => emit(build.authRequired(message, options)),
      complete: (message?: Say, options?: StatusOptions) => emit(build.completed(message, options)),
      fail: (message: Say, options?: StatusOptions) => emit(build.failed(message, options)),
      reject: (message: Say, options?: StatusOptions) => emit(build.rejected(message, options)),
      refuse: (error: A2AError, options?: RefuseOptions) => emit(build.refuse(error, options)),
    };
    const result = agent(wrapped);
    if (result && typeof (result as AsyncIterable<AgentEvent>)[Symbol.asyncIterator] === 'function') {
      return (async function* () {
        for await (const event of result as AsyncIterable<AgentEvent>) yield change(event, ctx);
      })();
    }
    return result;
  };
}

/**
 * `event` with `metadata` added to the metadata of the message or artifact
 * it sends, and `uri` in that message's or artifact's `extensions` (the
 * event as it is when it sends neither).
 */
export function withExtensionFields(event: AgentEvent, uri: string, metadata: Record<string, unknown>): AgentEvent {
  if (event.kind === 'artifact') {
    const { artifact } = event;
    const extensions = artifact.extensions?.includes(uri) ? artifact.extensions : [...(artifact.extensions ?? []), uri];
    return { ...event, artifact: { ...artifact, extensions, metadata: { ...artifact.metadata, ...metadata } } };
  }
  if (event.kind === 'refuse' || event.message === undefined) return event;
  return { ...event, message: withMetadata(event.message, uri, metadata) } as AgentEvent;
}

/** `say` as a message (without role and id) whose metadata also holds `metadata`, and which names `uri` among its extensions. */
function withMetadata(say: Say, uri: string, metadata: Record<string, unknown>): Say {
  type Said = Exclude<Say, string | readonly Part[]>;
  const message: Said = typeof say === 'string' ? { parts: [{ text: say }] } : Array.isArray(say) ? { parts: [...(say as readonly Part[])] } : (say as Said);
  const extensions = message.extensions?.includes(uri) ? message.extensions : [...(message.extensions ?? []), uri];
  return { ...message, extensions, metadata: { ...message.metadata, ...metadata } };
}
