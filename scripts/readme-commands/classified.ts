// The reviewed list of the docs' shell commands: for each document, each
// of its commands (as extract.ts gives it) and what the test does with it.
// A command the docs gain that is not here fails the test, and so does an
// entry here that no document has any more: review it, then add it.
//
// How a command runs (scripts/readme-commands.test.ts): with bash, from the
// repository root, in the document's order, with the variables its
// `export` lines set; the ports the docs name (8080, 41241, 41250, 41251,
// 41261, 41271, 41281, 41291) are swapped for free ones (8080 and 41241 reach an agent the test
// runs until a command of the document serves on that port); `npm start`
// without `--port` gets the swapped 41241.

/** What the test does with one command. */
export type Classification =
  /** Runs to completion: exit 0, and no JSON-RPC error in what it prints. */
  | { readonly kind: 'run'; readonly node22?: true; readonly via?: 'clone' }
  /**
   * Serves until the next command that serves on its port, or the end of
   * the document: ready once it prints `ready`. An `npm start` of the
   * reference agent then has its printed "Try:" lines run too.
   */
  | { readonly kind: 'serve'; readonly ready: string; readonly node22?: true; readonly append?: string; readonly banner?: true }
  /** `export NAME=value`: sets the variable for the next commands (`value` as the test's own when `given`). */
  | { readonly kind: 'env'; readonly given?: 'database' }
  /** Not run, for the reason given. */
  | { readonly kind: 'skip'; readonly why: string };

const READY = 'Press Ctrl+C to stop.';
const run = { kind: 'run' } as const;
const viaClone = { kind: 'run', via: 'clone' } as const;
const agent = { kind: 'serve', ready: READY } as const;
const env = { kind: 'env' } as const;
const skip = (why: string): Classification => ({ kind: 'skip', why });

const REGISTRY = skip('installs from the npm registry, where the packages are not before the first release; scripts/pack.test.ts and scripts/release.test.ts install them packed, and from a local registry');
const BENCH = skip('a benchmark: minutes of full load on a shared machine (npm run bench)');
const RELEASE = skip('cuts or publishes a release: rehearsed against a local registry by scripts/release.test.ts');
const POSTGRES_CLI = skip('the same command as `npm run taskwire-postgres -- ...` from the clone (scripts/clone-commands.test.ts); in an app it needs @taskwire/postgres installed from npm');
const TASK_ID = skip("needs the id of a task the reader has (a placeholder): the CLI's tests run get, list, cancel and watch (packages/client/test)");
const MCP_STDIO = skip('an MCP server on stdio: it waits for an MCP client on its standard input; packages/mcp/test drives it as a process');

/** Every shell command of the docs, per document. */
export const CLASSIFIED: Readonly<Record<string, Readonly<Record<string, Classification>>>> = {
  'README.md': {
    'git clone <this repository> taskwire && cd taskwire': skip('clones the repository this test runs in (.ci/run starts from a fresh clone)'),
    'npm start': agent,
    'npm test': skip('runs every test, this one included'),
    'npm install @taskwire/core @taskwire/server-http': REGISTRY,
    'npm install @taskwire/server-grpc': REGISTRY,
    'npm install @taskwire/server-ws': REGISTRY,
    'npm install @taskwire/client': REGISTRY,
    'npm install @trpc/client ws': REGISTRY,
    'npm install @taskwire/postgres': REGISTRY,
    'npm install @taskwire/mcp': REGISTRY,
    'npm install @taskwire/sqlite': REGISTRY,
    'export DATABASE_URL="$(bash scripts/start-postgres.sh)"': { kind: 'env', given: 'database' },
    'npm start -- --store "$DATABASE_URL" --migrate --port 41241': agent,
    'npm start -- --store "$DATABASE_URL" --port 41251': agent,
    'npm start -- --store "$DATABASE_URL" --port 41261': agent,
    'npx -y pnpm@10.34.9 -r --filter "./packages/**" build': skip('builds every package (minutes); the first `npm run taskwire` of this test builds them the same way'),
    'cd bench': BENCH,
    'npx -y pnpm@10.34.9 exec tsx src/core-bench.ts [N] [concurrency]': BENCH,
    'npx -y pnpm@10.34.9 exec tsx src/http-bench.ts [--rounds 3] [--duration 5] [--connections 32]': BENCH,
    'npx -y pnpm@10.34.9 exec tsx src/grpc-bench.ts [--rounds 3] [--duration 5] [--concurrency 32] [--stream-concurrency 4]': BENCH,
    'npx -y pnpm@10.34.9 exec tsx src/ws-bench.ts [--rounds 3] [--duration 5] [--concurrency 32] [--connections 2]': BENCH,
    'npx -y pnpm@10.34.9 exec tsx src/client-wait-bench.ts [runs] [rounds]': BENCH,
  },
  'RELEASING.md': {
    'npm run changeset': skip('asks its questions on a terminal, and writes a changeset'),
    'npx -y pnpm@10.34.9 install --frozen-lockfile': skip('reinstalls the workspace that runs this test'),
    'npx -y pnpm@10.34.9 exec changeset version': RELEASE,
    'npx -y pnpm@10.34.9 run release': RELEASE,
    'git push --follow-tags': RELEASE,
    'npx -y pnpm@10.34.9 exec changeset pre enter next': RELEASE,
    'npx -y pnpm@10.34.9 exec changeset pre exit': RELEASE,
  },
  'docs/from-a2a-js.md': {
    'npm install @taskwire/core @taskwire/server-http @taskwire/a2a-js': REGISTRY,
  },
  'packages/a2a-js/README.md': {
    'npm install @taskwire/a2a-js @taskwire/core @taskwire/server-http @a2a-js/sdk': REGISTRY,
  },
  'packages/langgraph/README.md': {
    'npm install @taskwire/langgraph @taskwire/core @taskwire/server-http @langchain/langgraph @langchain/core zod': REGISTRY,
  },
  'packages/openai-agents/README.md': {
    'npm install @taskwire/openai-agents @taskwire/core @taskwire/server-http @openai/agents zod': REGISTRY,
  },
  'packages/ai-sdk/README.md': {
    'npm install @taskwire/ai-sdk @taskwire/core @taskwire/server-http ai@^7 zod': REGISTRY,
    'npm install @ai-sdk/openai@4': skip('installs from the npm registry; examples/ai-sdk-agent depends on @ai-sdk/openai 4 and its tests load it'),
    'export OPENAI_API_KEY=sk-...': skip("a secret of the reader's (the examples run on the mock model without it)"),
  },
  'packages/auth/README.md': { 'npm install @taskwire/auth @taskwire/core': REGISTRY },
  'packages/client/README.md': {
    'npm install @taskwire/client': REGISTRY,
    'npm install @taskwire/client @taskwire/server-grpc': REGISTRY,
    'npm install @taskwire/client @trpc/client ws': REGISTRY,
    'taskwire send http://127.0.0.1:8080 provide a sunset quote': viaClone,
    'taskwire send http://127.0.0.1:8080 insta': viaClone,
    'taskwire send http://127.0.0.1:8080 make it shorter --json': viaClone,
    'taskwire stream 127.0.0.1:8080 slow 20': viaClone,
    'taskwire watch <taskId>': TASK_ID,
    'taskwire get <taskId>; taskwire list --status working; taskwire cancel <taskId>': TASK_ID,
    'taskwire card http://127.0.0.1:8080': viaClone,
    'taskwire inspect http://127.0.0.1:8080': skip('the inspector page: the inspector README\'s `npm run taskwire -- inspect` line serves it here'),
    'taskwire mcp http://127.0.0.1:8080': MCP_STDIO,
  },
  'packages/core/README.md': { 'npm install @taskwire/core': REGISTRY },
  'packages/inspector/README.md': {
    'npx -y @taskwire/inspector http://127.0.0.1:8080': REGISTRY,
    'npx -y @taskwire/inspector --check http://127.0.0.1:8080': REGISTRY,
    'npm run taskwire -- inspect http://127.0.0.1:41241': { kind: 'serve', ready: 'Taskwire inspector: ' },
    'npm run taskwire -- inspect --check http://127.0.0.1:41241': run,
    'npm install -g @taskwire/client @taskwire/inspector': REGISTRY,
    'taskwire inspect http://127.0.0.1:8080': skip('the same as the `npm run taskwire -- inspect` line above, once installed'),
    'taskwire inspect --check http://127.0.0.1:8080': viaClone,
    'npx -y -p @taskwire/inspector taskwire-inspect --check http://127.0.0.1:8080 --quick "hello" --slow "write a long report"': REGISTRY,
  },
  'packages/mcp/README.md': {
    'npm run taskwire -- mcp http://127.0.0.1:8080': MCP_STDIO,
    'npx -y @taskwire/mcp http://127.0.0.1:8080': REGISTRY,
    'npx -y @taskwire/mcp http://127.0.0.1:8080 --http 3000': REGISTRY,
    'npm install -g @taskwire/client @taskwire/mcp': REGISTRY,
    'taskwire mcp http://127.0.0.1:8080': MCP_STDIO,
    'taskwire mcp http://127.0.0.1:8080 --http 3000': skip('the MCP server over Streamable HTTP on a fixed port 3000; packages/mcp/test serves it on a free port'),
  },
  'packages/sqlite/README.md': {
    'npm install @taskwire/sqlite @taskwire/core @taskwire/server-http': REGISTRY,
  },
  'packages/postgres/README.md': {
    'npm install @taskwire/postgres @taskwire/core': REGISTRY,
    'npx taskwire-postgres status  --url postgres://user@host:5432/db [--schema taskwire]': POSTGRES_CLI,
    'npx taskwire-postgres migrate --url postgres://user@host:5432/db [--schema taskwire]': POSTGRES_CLI,
    'npx taskwire-postgres contract --url postgres://user@host:5432/db [--schema taskwire]': POSTGRES_CLI,
    [`psql "$DATABASE_URL" -c "DELETE FROM taskwire.taskwire_contract_steps WHERE step = 'lease-heartbeats'"`]: skip(
      'undoes a contract step of a live cluster (before a rollback); packages/postgres/src/contract-refusal.test.ts runs that statement and sees a store switch the step off',
    ),
  },
  'packages/server-grpc/README.md': { 'npm install @taskwire/server-grpc @taskwire/core': REGISTRY },
  'packages/server-http/README.md': {
    'npm install @taskwire/server-http @taskwire/core': REGISTRY,
    [`curl -s localhost:8080/a2a/rest/message:send -H 'A2A-Version: 1.0' -H 'content-type: application/a2a+json' -d '{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}]}}'`]: run,
    "curl -sN localhost:8080/a2a/rest/tasks/$TASK_ID:subscribe -H 'A2A-Version: 1.0' -H 'Last-Event-ID: 3'": skip('needs $TASK_ID, a running task of the reader\'s; packages/server-http/test resumes SSE streams by Last-Event-ID'),
  },
  'packages/server-ws/README.md': {
    'npm install @taskwire/server-ws @taskwire/core': REGISTRY,
    'npm install @trpc/client ws': REGISTRY,
  },
  'examples/ai-sdk-agent/README.md': {
    'cd examples/ai-sdk-agent && npm start -- --port 41251 --store memory': { kind: 'serve', ready: READY, node22: true },
    'npm run taskwire -- send http://127.0.0.1:41251 "book Lisbon"': { kind: 'run', node22: true },
  },
  'examples/openai-agents-agent/README.md': {
    'cd examples/openai-agents-agent && npm start -- --port 41281 --store memory': { kind: 'serve', ready: READY, node22: true },
    'npm run taskwire -- send http://127.0.0.1:41281 "book Lisbon"': run,
    'npm run taskwire -- mcp http://127.0.0.1:41281': skip('an MCP server on stdio: it waits for an MCP client on its standard input; src/mcp.test.ts of the example drives it with the MCP SDK\'s client'),
  },
  'examples/langgraph-agent/README.md': {
    'cd examples/langgraph-agent && npm start -- --port 41291 --store memory': agent,
    'npm run taskwire -- send http://127.0.0.1:41291 "book Lisbon"': run,
    'npm run taskwire -- mcp http://127.0.0.1:41291': skip('an MCP server on stdio: it waits for an MCP client on its standard input; src/mcp.test.ts of the example drives it with the MCP SDK\'s client'),
  },
  'examples/workers-d1/README.md': {
    'cd examples/workers-d1 && npm start -- --port 41271': { kind: 'serve', ready: READY, node22: true },
    'npm run taskwire -- stream http://127.0.0.1:41271 "slow 5"': run,
  },
  'examples/reference-agent/README.md': {
    'npm start': agent,
    'npm start -- --store memory --port 8080 --api-key sekret': agent,
    'export DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres': { kind: 'env', given: 'database' },
    'npm start -- --migrate': agent,
    'npx -y pnpm@10.34.9 --filter @taskwire/reference-agent idp': { kind: 'serve', ready: 'Call it:', append: ' -- --port {41250} --audience http://127.0.0.1:{41241}/a2a', banner: true },
    'npm start -- --store memory --oidc-issuer http://127.0.0.1:41250 --audience http://127.0.0.1:41241/a2a': agent,
    'export TASKWIRE_CLIENT_SECRET=demo-secret-change-me': env,
    "npm run taskwire -- send 127.0.0.1:41241 echo hello --client-id demo --issuer http://127.0.0.1:41250 --resource http://127.0.0.1:41241/a2a --scope 'tasks:read tasks:write'": run,
    'docker run --rm -p 16686:16686 -p 4317:4317 -p 4318:4318 jaegertracing/all-in-one:latest': skip('needs Docker and the Jaeger image; test/otlp.test.ts checks the export against an OTLP receiver of its own'),
    'OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm start': skip('exports to the Jaeger of the line before; test/otlp.test.ts checks the export'),
    'npm run taskwire -- send http://127.0.0.1:41241 "provide a sunset quote"': skip('talks to the agent of the OTEL line before (not run); the Try: lines of every agent this test starts run the same call'),
    'npx -y pnpm@10.34.9 exec vitest run --project reference-agent': skip('runs a test project (npm test runs it)'),
  },
};
