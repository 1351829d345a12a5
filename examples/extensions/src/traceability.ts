import type { Agent, AgentExtension } from '@taskwire/core';
import { mapEvents, withExtensionFields } from './wrap-events.js';

const CORE_PATH = 'github.com/a2aproject/a2a-samples/extensions/traceability/v1';

/** The Traceability sample extension's URI. */
export const TRACEABILITY_URI = `https://${CORE_PATH}`;
/** The metadata key of the trace a message or artifact carries. */
export const TRACEABILITY_FIELD = `${CORE_PATH}/traceability`;

/** The Traceability extension's entry for an agent card's `capabilities.extensions`. */
export const traceabilityExtension: AgentExtension = { uri: TRACEABILITY_URI, description: 'Adds traceability information to messages and artifacts.' };

/** One step of a trace, in the sample's wire shape (snake_case keys). */
export interface TraceStep {
  readonly step_id: string;
  readonly trace_id: string;
  readonly call_type: 'AGENT' | 'TOOL' | 'HOST';
  readonly name: string;
  readonly start_time: string;
  readonly end_time: string;
  /** Milliseconds from start to end. */
  readonly latency: number;
}

/** A response trace: its id and its steps. */
export interface ResponseTrace {
  readonly trace_id: string;
  readonly steps: readonly TraceStep[];
}

/** Options of {@link withTraceability}. */
export interface TraceabilityOptions {
  /** The name of the run's step (default `agent`). */
  readonly name?: string;
  readonly now?: () => number;
  readonly newId?: () => string;
}

/**
 * `agent` with the Traceability extension: when a request asks for it, it
 * is activated, the run is traced as one `AGENT` step (from the run's start
 * to the event), and every message and artifact the agent sends carries the
 * trace so far under {@link TRACEABILITY_FIELD}, with the extension's URI
 * in its `extensions`. A request that does not ask for it gets the agent's
 * events unchanged.
 */
export function withTraceability(agent: Agent, options: TraceabilityOptions = {}): Agent {
  const now = options.now ?? Date.now;
  const newId = options.newId ?? (() => crypto.randomUUID());
  return (ctx) => {
    if (!ctx.extensions.activate(TRACEABILITY_URI)) return agent(ctx);
    const started = now();
    const traceId = `trace-${newId()}`;
    const stepId = `step-${newId()}`;
    const traceNow = (): ResponseTrace => {
      const ended = now();
      const step: TraceStep = {
        step_id: stepId,
        trace_id: traceId,
        call_type: 'AGENT',
        name: options.name ?? 'agent',
        start_time: new Date(started).toISOString(),
        end_time: new Date(ended).toISOString(),
        latency: ended - started,
      };
      return { trace_id: traceId, steps: [step] };
    };
    return mapEvents(agent, (event) => withExtensionFields(event, TRACEABILITY_URI, { [TRACEABILITY_FIELD]: traceNow() }))(ctx);
  };
}

/** The trace a message or artifact carries under {@link TRACEABILITY_FIELD}, if any. */
export function traceOf(item: { readonly metadata?: Readonly<Record<string, unknown>> | undefined } | undefined): ResponseTrace | undefined {
  const value = item?.metadata?.[TRACEABILITY_FIELD];
  return typeof value === 'object' && value !== null ? (value as ResponseTrace) : undefined;
}
