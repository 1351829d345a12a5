/** What {@link startTelemetry} started: flush and stop it before the process exits. */
export interface RunningTelemetry {
  shutdown(): Promise<void>;
}

/** The part of `@opentelemetry/sdk-node` the agent uses. */
interface NodeSdkModule {
  NodeSDK: new (config: { serviceName?: string }) => { start(): void; shutdown(): Promise<void> };
}

/** The service name spans and metrics carry when `OTEL_SERVICE_NAME` is unset. */
export const DEFAULT_SERVICE_NAME = 'taskwire-reference-agent';

/** True when the environment asks for telemetry: an OTLP endpoint or a traces exporter is set (and the SDK is not disabled). */
export function telemetryWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_TRACES_EXPORTER);
}

/**
 * Starts the OpenTelemetry Node SDK when the standard environment asks for
 * it (see {@link telemetryWanted}); otherwise loads nothing and resolves
 * `undefined`. The SDK reads the rest of its configuration from the
 * environment: the exporter (`OTEL_TRACES_EXPORTER`, default `otlp`), the
 * OTLP protocol (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` by default,
 * `http/json`, `grpc`), endpoints, headers, sampling, metric export. The
 * service name is `OTEL_SERVICE_NAME`, default {@link DEFAULT_SERVICE_NAME}.
 * Once started, Taskwire's spans and metrics reach it through the
 * registered `@opentelemetry/api` globals.
 */
export async function startTelemetry(
  env: Readonly<Record<string, string | undefined>> = process.env,
  load: () => Promise<NodeSdkModule> = () => import('@opentelemetry/sdk-node') as Promise<NodeSdkModule>,
): Promise<RunningTelemetry | undefined> {
  if (!telemetryWanted(env)) return undefined;
  const { NodeSDK } = await load();
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
