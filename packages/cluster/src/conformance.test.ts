import type { TransportFixture } from '@taskwire/conformance';
import { NOT_PROTOJSON_ON_GRPC, notProtoJson, REQUIREMENTS, runConformance } from '@taskwire/conformance';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import { withTenant } from './support/round-robin.js';
import { allSettled } from './support/settled.js';
import { useCluster } from './support/use-cluster.js';

/** The push requirements need a service that offers push; the reference agent's card does not. */
const noPush = Object.fromEntries(
  REQUIREMENTS.filter((r) => r.id.startsWith('push-') && r.id !== 'push-not-supported').map((r) => [
    r.id,
    "the reference agent's card does not offer push notifications",
  ]),
);

/**
 * The extension and idempotency requirements run an agent of their own; the replicas run the reference agent (the rules
 * are checked over every transport in @taskwire/conformance; keys across replicas in idempotent-sends.test.ts).
 */
const ownAgent = Object.fromEntries(
  REQUIREMENTS.filter((r) => r.id.startsWith('extensions-') || r.id.startsWith('idempotent-send-')).map((r) => [r.id, 'the replicas run the reference agent, not the agent these requirements bring']),
);

describePostgres('the A2A requirement suite over 3 reference-agent processes on one database', (db) => {
  const cluster = useCluster(db, 3);

  for (const binding of BINDINGS) {
    /** Each call goes to the next replica; each test runs under a tenant of its own (the replicas share one database). */
    const fixture: TransportFixture = {
      name: `${binding}, each call to the next of 3 replicas`,
      async connect() {
        const transport = withTenant(cluster().roundRobin(binding), `suite-${crypto.randomUUID()}`);
        return { transport, close: async () => {}, idle: () => allSettled(transport) };
      },
    };
    const notApplicable = { ...noPush, ...ownAgent };
    runConformance(fixture, { notApplicable: binding === 'gRPC' ? { ...notApplicable, ...notProtoJson(NOT_PROTOJSON_ON_GRPC) } : notApplicable });
  }
});
