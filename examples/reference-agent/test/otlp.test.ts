import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SERVICE_NAME, startTelemetry, telemetryWanted } from '../src/telemetry.js';
import { OtlpReceiver, type OtlpExport } from './otlp-receiver.js';

const root = join(import.meta.dirname, '..');
const running: { child: ChildProcess; receiver: OtlpReceiver }[] = [];

afterEach(async () => {
  for (const { child, receiver } of running.splice(0)) {
    if (child.exitCode === null) child.kill('SIGKILL');
    await receiver.close();
  }
});

/** Runs the agent (`src/main.ts`, memory store, free ports) exporting to a fresh receiver; resolves once it serves. */
async function agentWithReceiver(env: Record<string, string>): Promise<{ receiver: OtlpReceiver; jsonRpc: string; base: string }> {
  const receiver = await OtlpReceiver.start();
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/main.ts', '--port', '0', '--grpc-port', '0', '--store', 'memory'], {
    cwd: root,
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_METRIC_EXPORT_INTERVAL: '100', ...env },
  });
  running.push({ child, receiver });
  let output = '';
  const ready = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`the agent exited with ${code}:\n${output}`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Press Ctrl+C to stop.')) resolve(output);
    });
  });
  const jsonRpc = /JSON-RPC\s+(\S+)/.exec(ready)![1]!;
  return { receiver, jsonRpc, base: new URL(jsonRpc).origin };
}

/** Sends `echo hi` as part of a trace of ours; resolves with the task id. */
async function echo(jsonRpc: string, traceparent: string): Promise<string> {
  const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } } };
  const response = await fetch(jsonRpc, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', traceparent },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as { result: { task: { id: string } } }).result.task.id;
}

interface JsonSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}
interface JsonTraces {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: JsonSpan[] }[] }[];
}

const attribute = (span: JsonSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value.stringValue;
const spansOf = (e: OtlpExport): { service: string | undefined; span: JsonSpan }[] =>
  (JSON.parse(e.body.toString('utf8')) as JsonTraces).resourceSpans.flatMap((r) =>
    r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ service: r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue, span }))),
  );

describe('the reference agent with OpenTelemetry', () => {
  it('exports spans over OTLP/HTTP JSON with its service name, the caller\'s trace and the A2A attributes; serves /healthz and /readyz', async () => {
    const { receiver, jsonRpc, base } = await agentWithReceiver({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const taskId = await echo(jsonRpc, `00-${traceId}-${parent}-01`);

    const spanNamed = (name: string) => (e: OtlpExport) => e.path === '/v1/traces' && spansOf(e).some(({ span }) => span.name === name && span.traceId === traceId);
    const server = spansOf(await receiver.until(spanNamed('lf.a2a.v1.A2AService/SendMessage'))).find(({ span }) => span.name === 'lf.a2a.v1.A2AService/SendMessage')!;
    expect(server.service).toBe(DEFAULT_SERVICE_NAME);
    expect(server.span.parentSpanId).toBe(parent);
    expect(attribute(server.span, 'gen_ai.agent.a2a.task_id')).toBe(taskId);
    expect(attribute(server.span, 'rpc.system')).toBe('jsonrpc');
    const run = spansOf(await receiver.until(spanNamed('invoke_agent Taskwire reference agent'))).find(({ span }) => span.name.startsWith('invoke_agent'))!;
    expect(attribute(run.span, 'gen_ai.agent.a2a.status')).toBe('TASK_STATE_COMPLETED');
    await receiver.until((e) => e.path === '/v1/metrics' && e.body.includes('rpc.server.duration'));

    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  }, 60_000);

  it('exports OTLP/HTTP protobuf by default, under OTEL_SERVICE_NAME', async () => {
    const { receiver, jsonRpc } = await agentWithReceiver({ OTEL_SERVICE_NAME: 'agent-under-test' });
    const taskId = await echo(jsonRpc, `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`);
    // Protobuf keeps strings as they are: the service name, the span name and the task id are in the bytes.
    const exported = await receiver.until((e) => e.path === '/v1/traces' && e.body.includes(taskId));
    expect(exported.contentType).toBe('application/x-protobuf');
    for (const text of ['agent-under-test', 'lf.a2a.v1.A2AService/SendMessage', 'gen_ai.agent.a2a.task_id']) expect(exported.body.includes(text)).toBe(true);
  }, 60_000);

  it('loads no OpenTelemetry SDK when no exporter is configured', async () => {
    const load = vi.fn();
    expect(await startTelemetry({}, load)).toBeUndefined();
    expect(await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_SDK_DISABLED: 'true' }, load)).toBeUndefined();
    expect(load).not.toHaveBeenCalled();
    expect([telemetryWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), telemetryWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x' })]).toEqual([true, true]);
  });
});
