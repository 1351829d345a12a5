import type { TelemetrySetting } from '@taskwire/core';
import { resolveTelemetry, spanOf } from '@taskwire/core';
import type { LanguageModelUsage } from 'ai';
import type { UsageRecord } from './shapes.js';

/** The token counts the AI SDK reported, without the ones it left unknown. */
export function usageRecord(usage: LanguageModelUsage | undefined): UsageRecord | undefined {
  if (!usage) return undefined;
  const record: Record<string, number> = {};
  const put = (key: keyof UsageRecord, value: number | undefined) => {
    if (typeof value === 'number' && Number.isFinite(value)) record[key] = value;
  };
  put('inputTokens', usage.inputTokens);
  put('outputTokens', usage.outputTokens);
  put('totalTokens', usage.totalTokens);
  put('reasoningTokens', usage.outputTokenDetails?.reasoningTokens);
  put('cachedInputTokens', usage.inputTokenDetails?.cacheReadTokens);
  return Object.keys(record).length > 0 ? record : undefined;
}

/** The OpenTelemetry GenAI attribute names of the token counts set on the run's span. */
export const USAGE_ATTRIBUTES = {
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  model: 'gen_ai.request.model',
} as const;

/**
 * Sets the run's token counts (and the model id, when known) on the span
 * active while the agent runs: the service's `invoke_agent` run span.
 * Does nothing without telemetry (or with `telemetry: false`).
 */
export function recordUsageOnSpan(setting: TelemetrySetting | undefined, usage: UsageRecord | undefined, modelId: string | undefined): void {
  const telemetry = resolveTelemetry(setting);
  if (!telemetry.enabled) return;
  const span = spanOf(telemetry.active());
  if (!span?.isRecording()) return;
  const attributes: Record<string, string | number> = {};
  if (usage?.inputTokens !== undefined) attributes[USAGE_ATTRIBUTES.inputTokens] = usage.inputTokens;
  if (usage?.outputTokens !== undefined) attributes[USAGE_ATTRIBUTES.outputTokens] = usage.outputTokens;
  if (modelId) attributes[USAGE_ATTRIBUTES.model] = modelId;
  span.setAttributes(attributes);
}
