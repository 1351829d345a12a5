import type { TransportFixture } from '@taskwire/conformance';
import { NOT_PROTOJSON_ON_GRPC, notProtoJson, REQUIREMENTS, runConformance } from '@taskwire/conformance';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import { afterAll, beforeAll } from 'vitest';
import { Cluster } from './support/cluster.js';
import { withTenant } from './support/round-robin.js';
import { allSettled } from './support/settled.js';

/** The push requirements need a service that offers push; the reference agent's card does not. */
const noPush = Object.fromEntries(
  REQUIREMENTS.filter((r) => r.id.startsWith('push-') && r.id !== 'push-not-supported').map((r) => [
    r.id,
    "the reference agent's card does not offer push notifications",
  ]),
);

describePostgres('the A2A requirement suite over 3 reference-agent processes on one database', (db) => {
  let cluster: Cluster;
  beforeAll(async () => {
    const schema = await db.schema('tw_cluster_suite');
    cluster = await Cluster.start({ size: 3, databaseUrl: db.url, args: ['--schema', schema] });
  }, 60_000);
  afterAll(() => cluster?.close());

  for (const binding of BINDINGS) {
    /** Each call goes to the next replica; each test runs under a tenant of its own (the replicas share one database). */
    const fixture: TransportFixture = {
      name: `${binding}, each call to the next of 3 replicas`,
      async connect() {
        const transport = withTenant(cluster.roundRobin(binding), `suite-${crypto.randomUUID()}`);
        return { transport, close: async () => {}, idle: () => allSettled(transport) };
      },
    };
    runConformance(fixture, { notApplicable: binding === 'gRPC' ? { ...noPush, ...notProtoJson(NOT_PROTOJSON_ON_GRPC) } : noPush });
  }
});
