/**
 * The floor under `pg-stream-bench --cluster`: the database work a streamed
 * event of `slow 50 0` needs in Taskwire's stored format, with nothing else.
 * `--streams` loops each commit events one at a time, awaiting each (as the
 * reference agent does): a working status update (its status timestamp,
 * indexed for ListTasks, changes) then an artifact chunk (the row's indexed
 * columns stay the same), alternately. The commits of one event-loop turn go
 * in one statement, as Taskwire batches them, each row fenced by its lease
 * holder and epoch; every batch is then announced with one NOTIFY per event
 * (a second connection LISTENs, as the other replica does). No HTTP, no SSE,
 * no task lifecycle, no JSON made per event: what is left is PostgreSQL's
 * work and node-postgres's. Prints node and PostgreSQL CPU per event.
 * `--stored N` stores N ended tasks first; `--keep-key` measures what a
 * stored format whose working updates leave the indexed status key alone
 * would cost.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-commit-floor.ts [--streams 50] [--seconds 10] [--stored 0] [--keep-key]
 */
import { parseArgs } from 'node:util';
import { migrate } from '@taskwire/postgres';
import pg from 'pg';
import { startBenchCluster, storeEndedTasks } from './pg-cluster.js';

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '10' },
    stored: { type: 'string', default: '0' },
    'keep-key': { type: 'boolean', default: false },
  },
});
/** `--keep-key`: working updates leave the indexed status key alone (every update but the completion can be HOT), as a stored format keeping it out of the row would. */
const KEEP_KEY = args['keep-key'];
const STREAMS = Number(args.streams);
const HOLDER = 'taskwire floor';

// One statement per batch: each row's task update under its lease and version, then its event. The
// always-true json_typeof test makes the generic plan guess one row and reach each task through its
// primary key, as Taskwire's batch does (see task-batch-sql.ts).
const BATCH = `WITH c AS (
    SELECT * FROM ROWS FROM (unnest($1::text[]), unnest($2::text[]), unnest($3::integer[]), json_array_elements($4::json), unnest($6::text[])) WITH ORDINALITY AS c(id, status_key, expected, event, state, i)
  ), updated AS (
    UPDATE taskwire.tasks t SET status_key = coalesce(c.status_key, t.status_key), state = c.state, version = t.version + 1, last_sequence = t.last_sequence + 1, updated_at = now()
    FROM c WHERE json_typeof(c.event) = 'object' AND t.id = c.id AND t.version = c.expected AND t.lease_holder = $5 AND t.lease_epoch = 1
    RETURNING c.i, t.id, t.version, t.last_sequence, c.event
  ), logged AS (
    INSERT INTO taskwire.task_events (task_id, sequence, event) SELECT id, last_sequence, event::text FROM updated
  )
  SELECT i, version FROM updated`;
const NOTIFY = 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload';

const cluster = await startBenchCluster();
try {
  await migrate({ connectionString: cluster.url });
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  const listener = new pg.Client({ connectionString: cluster.url });
  await listener.connect();
  await listener.query('LISTEN taskwire_floor');
  let heard = 0;
  listener.on('notification', () => void heard++);
  await storeEndedTasks(pool, Number(args.stored));
  const CREATE = `INSERT INTO taskwire.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, lease_holder, lease_epoch, lease_expires_at)
    VALUES ($1, '', $1, 'TASK_STATE_WORKING', $2, 1, 1, '{"id":"' || $1 || '","pad":"' || repeat('x', 300) || '"}', $3, 1, now() + interval '1 hour')`;

  // One batch in flight at a time: the commits queued meanwhile (or in one turn) go out together in the next; each resolves with its row's new version.
  type Pending = { id: string; key: string | null; state: string; expected: number; event: string; done: (version: number) => void; failed: (error: unknown) => void };
  let queue: Pending[] = [];
  const flush = async (batch: Pending[]) => {
    try {
      const { rows } = await pool.query<{ i: string; version: number }>({
        name: 'floor-batch',
        text: BATCH,
        values: [batch.map((p) => p.id), batch.map((p) => p.key), batch.map((p) => p.expected), `[${batch.map((p) => p.event).join(',')}]`, HOLDER, batch.map((p) => p.state)],
      });
      await pool.query({ name: 'floor-notify', text: NOTIFY, values: ['taskwire_floor', rows.map((r) => `${batch[Number(r.i) - 1]!.id} ${r.version}`)] });
      for (const row of rows) batch[Number(row.i) - 1]!.done(row.version);
      if (rows.length !== batch.length) throw new Error(`${batch.length - rows.length} commits refused`);
    } catch (error) {
      for (const p of batch) p.failed(error);
    }
  };
  let inFlight = false;
  const drain = async () => {
    inFlight = true;
    while (queue.length > 0) await flush(queue.splice(0));
    inFlight = false;
  };
  const commit = (id: string, key: string | null, expected: number, event: string, state = 'TASK_STATE_WORKING') =>
    new Promise<number>((done, failed) => {
      if (queue.length === 0 && !inFlight) setImmediate(() => void drain());
      queue.push({ id, key, state, expected, event, done, failed });
    });

  let events = 0;
  let stop = false;
  // Each stream is a task of 50 rounds, as `slow 50 0` makes: created (one statement), 100 events, completed; then the next task.
  let tasks = 0;
  const loops = Array.from({ length: STREAMS }, async () => {
    while (!stop) {
      const id = `floor-${tasks++}`;
      await pool.query({ name: 'floor-create', text: CREATE, values: [id, `${Date.now()}`, HOLDER] });
      events++; // the task, a stream's first event
      let version = 1;
      for (let round = 1; round <= 50; round++) {
        const status = `{"statusUpdate":{"taskId":"${id}","contextId":"${id}","status":{"state":"TASK_STATE_WORKING","timestamp":"${new Date().toISOString()}"},"metadata":{"progress":{"current":${round},"total":50}}}}`;
        version = await commit(id, KEEP_KEY ? null : `${Date.now()}-${round}`, version, status);
        events++;
        const chunk = `{"artifactUpdate":{"taskId":"${id}","contextId":"${id}","artifact":{"artifactId":"output-${id}","name":"output","parts":[{"text":"chunk ${round} of 50\\n"}]},"append":${round > 1},"lastChunk":${round === 50}}}`;
        version = await commit(id, null, version, chunk);
        events++;
      }
      const done = `{"statusUpdate":{"taskId":"${id}","contextId":"${id}","status":{"state":"TASK_STATE_COMPLETED","timestamp":"${new Date().toISOString()}","message":{"role":"ROLE_AGENT","messageId":"m-${id}","parts":[{"text":"Done: 50 chunks."}]}}}}`;
      await commit(id, `${Date.now()}-done`, version, done, 'TASK_STATE_COMPLETED');
      events++;
    }
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await sleep(3000);
  const [e0, c0, p0] = [events, process.cpuUsage(), cluster.cpuSeconds()];
  await sleep(Number(args.seconds) * 1000);
  const [e1, c1, p1] = [events, process.cpuUsage(c0), cluster.cpuSeconds()];
  stop = true;
  await Promise.all(loops);
  const n = e1 - e0;
  console.log(
    `floor${KEEP_KEY ? ' (--keep-key)' : ''}, ${STREAMS} streams: ${n} events (${Math.round(n / Number(args.seconds))}/s), node ${(((c1.user + c1.system) / n)).toFixed(0)} µs/event, PostgreSQL ${(((p1 - p0) * 1e6) / n).toFixed(0)} µs/event; ${heard} notifications heard`,
  );
  await listener.end();
  await pool.end();
} finally {
  await cluster.stop();
}
