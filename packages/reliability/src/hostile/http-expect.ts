import type { A2AErrorKind } from '@taskwire/core';
import { ERROR_TABLE } from '@taskwire/core';
import type { HttpAnswer } from './http-exchange.js';

type JsonRpcId = string | number | null;

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The problems of one JSON-RPC error object against the kind it must be and the id it must carry. */
export function rpcErrorProblems(value: unknown, kind: A2AErrorKind, id: JsonRpcId): string[] {
  const answer = value as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown; data?: Array<{ reason?: unknown }> } } | undefined;
  if (typeof answer !== 'object' || answer === null) return [`not a JSON-RPC response: ${String(value).slice(0, 200)}`];
  const problems: string[] = [];
  const { code, reason } = ERROR_TABLE[kind];
  if (answer.jsonrpc !== '2.0') problems.push('no "jsonrpc": "2.0"');
  if (answer.id !== id) problems.push(`id ${JSON.stringify(answer.id)?.slice(0, 60)} instead of ${JSON.stringify(id)?.slice(0, 60)}`);
  if (answer.error?.code !== code) problems.push(`error code ${String(answer.error?.code)} (${String(answer.error?.message).slice(0, 200)}) instead of ${code} (${kind})`);
  else if (answer.error.data?.[0]?.reason !== reason) problems.push(`ErrorInfo reason ${String(answer.error.data?.[0]?.reason)} instead of ${reason}`);
  if (typeof answer.error?.message !== 'string' || answer.error.message === '') problems.push('an error without a message');
  return problems;
}

/** A JSON-RPC answer that must be one error of `kind` for request `id`, on HTTP `status`. */
export function expectRpcError(answer: HttpAnswer, kind: A2AErrorKind, id: JsonRpcId, status = 200): string[] {
  const problems = answer.status === status ? [] : [`HTTP ${answer.status} instead of ${status}`];
  problems.push(...rpcErrorProblems(parse(answer.body), kind, id));
  if (kind === 'Unauthenticated' && !answer.headers['www-authenticate']) problems.push('a 401 without WWW-Authenticate');
  return problems;
}

/** A JSON-RPC batch answer that must hold one error of `kind` per request id, in order. */
export function expectRpcBatch(answer: HttpAnswer, kind: A2AErrorKind, ids: readonly JsonRpcId[]): string[] {
  const body = parse(answer.body);
  if (answer.status !== 200 || !Array.isArray(body) || body.length !== ids.length) {
    return [`HTTP ${answer.status} with ${answer.body.slice(0, 200)} instead of ${ids.length} errors`];
  }
  return body.flatMap((item, i) => rpcErrorProblems(item, kind, ids[i]!).map((p) => `item ${i}: ${p}`));
}

/** An HTTP+JSON answer that must be the AIP-193 error body of `kind` with HTTP `status` (default: the kind's). */
export function expectRestError(answer: HttpAnswer, kind: A2AErrorKind, status: number = ERROR_TABLE[kind].http): string[] {
  const problems = answer.status === status ? [] : [`HTTP ${answer.status} (${answer.body.slice(0, 200)}) instead of ${status}`];
  const body = parse(answer.body) as { error?: { code?: unknown; status?: unknown; message?: unknown; details?: Array<{ reason?: unknown }> } } | undefined;
  const { reason, grpc } = ERROR_TABLE[kind];
  if (!body?.error) return [...problems, `not an AIP-193 error body: ${answer.body.slice(0, 200)}`];
  if (body.error.code !== status) problems.push(`error.code ${String(body.error.code)} instead of ${status}`);
  if (body.error.status !== grpc) problems.push(`error.status ${String(body.error.status)} instead of ${grpc}`);
  if (body.error.details?.[0]?.reason !== reason) problems.push(`ErrorInfo reason ${String(body.error.details?.[0]?.reason)} (${String(body.error.message).slice(0, 200)}) instead of ${reason}`);
  if (typeof body.error.message !== 'string' || body.error.message === '') problems.push('an error without a message');
  if (kind === 'Unauthenticated' && !answer.headers['www-authenticate']) problems.push('a 401 without WWW-Authenticate');
  return problems;
}

/** A raw exchange that must end with HTTP `status` (node's own parser errors answer 400/431 and close). */
export function expectRawStatus(raw: string, status: number): string[] {
  const got = /^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1];
  return Number(got) === status ? [] : [`${got ? `HTTP ${got}` : 'no HTTP answer'} instead of ${status}: ${raw.slice(0, 120).replace(/\r\n/g, ' | ')}`];
}
