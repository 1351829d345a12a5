// The names docs/production.md uses (its public URL, issuer, replicas,
// database), and what the runbook's test puts in their place.
import { nginxMainConfig } from '../../packages/cluster/src/support/nginx.js';

/** What the test runs in place of the runbook's names. */
export interface Names {
  /** `https://agents.example.com`: nginx's HTTP address. */
  readonly publicUrl: string;
  /** `agents.example.com:8081`: nginx's gRPC address. */
  readonly publicGrpc: string;
  /** `https://login.example.com`: the trial OpenID provider the page starts (the reference agent's `idp`), on {@link idpPort}. */
  readonly issuer: string;
  /** The port of the trial OpenID provider (the page's default is 41250). */
  readonly idpPort: number;
  /** `postgres://taskwire@db.internal:5432/taskwire`: a fresh database. */
  readonly database: string;
  /** The HTTP ports of replicas 1, 2, ... (`10.0.0.11:41241`, `10.0.0.12:41241`; gRPC on the next port). */
  readonly replicaPorts: readonly number[];
}

/** `text` with `from` replaced by `to` everywhere; throws when `from` is not in it (the page changed shape). */
function swapAll(text: string, from: string | RegExp, to: (match: string, ...groups: string[]) => string): string {
  const pattern = typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : from;
  return text.replace(pattern, to);
}

/** The runbook's replica address `10.0.0.1N:4124P` as the test's `127.0.0.1:<port>`. */
function replicaAddresses(text: string, names: Names): string {
  return swapAll(text, /10\.0\.0\.1(\d):4124([12])/g, (_, n: string, p: string) => {
    const port = names.replicaPorts[Number(n) - 1];
    if (port === undefined) throw new Error(`the runbook names replica ${n}; the test runs ${names.replicaPorts.length}`);
    return `127.0.0.1:${port + Number(p) - 1}`;
  });
}

/**
 * A command of the runbook with the test's names: one line, or for the
 * replicas' `npm start` one line per replica (its port and `replica-N`).
 */
export function swapNames(command: string, names: Names): string[] {
  let line = command;
  line = swapAll(line, 'agents.example.com:8081', () => names.publicGrpc);
  line = swapAll(line, 'https://agents.example.com', () => names.publicUrl);
  line = swapAll(line, 'https://login.example.com', () => names.issuer);
  line = swapAll(line, 'postgres://taskwire@db.internal:5432/taskwire', () => names.database);
  line = replicaAddresses(line, names);
  // The trial provider's client, as step 2 says to use it, in place of your provider's.
  line = swapAll(line, '--client-id ops-check', () => '--client-id demo');
  line = swapAll(line, 'TASKWIRE_CLIENT_SECRET=replace-with-the-secret', () => 'TASKWIRE_CLIENT_SECRET=demo-secret-change-me');
  if (/ --filter @taskwire\/reference-agent idp -- /.test(line)) return [`${line} --port ${names.idpPort}`];
  if (!/^npm start -- /.test(line)) return [line];
  if (!line.includes('--host 0.0.0.0') || !line.includes('--port 41241') || !line.includes('--replica-name replica-1')) {
    throw new Error(`the runbook's replica command changed shape: ${command}`);
  }
  return names.replicaPorts.map((port, i) =>
    line.replace('--host 0.0.0.0', '--host 127.0.0.1').replace('--port 41241', `--port ${port}`).replace('--replica-name replica-1', `--replica-name replica-${i + 1}`),
  );
}

/** The runbook's ```nginx block with the test's replicas and listen ports, in a whole configuration whose files stay in `dir`. */
export function runbookNginx(markdown: string, names: Names, listen: { readonly http: number; readonly grpc: number }, dir: string): string {
  const block = /```nginx\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (block === undefined) throw new Error('docs/production.md has no nginx block');
  let out = replicaAddresses(block, names);
  for (const [from, to] of [
    ['listen 8080;', `listen 127.0.0.1:${listen.http};`],
    ['listen 8081 http2;', `listen 127.0.0.1:${listen.grpc} http2;`],
  ] as const) {
    if (!out.includes(from)) throw new Error(`the runbook's nginx block no longer has ${from}`);
    out = out.replace(from, to);
  }
  return nginxMainConfig(out, dir);
}
