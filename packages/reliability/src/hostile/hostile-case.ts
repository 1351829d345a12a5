/**
 * One malformed or hostile request of a corpus, with what the server must
 * answer. `run` sends it and resolves the problems with the answer (empty
 * when it was exactly the expected error); it rejects only when the
 * exchange itself broke.
 */
export interface HostileCase {
  /** The kind of abuse (`broken JSON`, `unknown method`, ...), for the report. */
  readonly category: string;
  /** What this case sends and expects, short. */
  readonly name: string;
  run(): Promise<string[]>;
}

/** How long any single case may go unanswered before the server counts as hung (a liveness bound, not a speed check). */
export const ANSWER_LIMIT_MS = 15_000;

/** What running a corpus found. */
export interface CorpusReport {
  readonly cases: number;
  readonly byCategory: Record<string, number>;
  readonly problems: string[];
}

/** Runs `cases` with at most `parallel` in flight; every case's problems are prefixed with its category and name. */
export async function runCorpus(cases: readonly HostileCase[], parallel: number): Promise<CorpusReport> {
  const problems: string[] = [];
  const byCategory: Record<string, number> = {};
  let next = 0;
  const lane = async () => {
    while (next < cases.length) {
      const item = cases[next++]!;
      byCategory[item.category] = (byCategory[item.category] ?? 0) + 1;
      const label = `[${item.category}] ${item.name}`;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const hung = new Promise<string[]>((resolve) => {
        timer = setTimeout(() => resolve([`no answer within ${ANSWER_LIMIT_MS} ms (the server hung)`]), ANSWER_LIMIT_MS);
      });
      try {
        const found = await Promise.race([item.run(), hung]);
        problems.push(...found.map((p) => `${label}: ${p}`));
      } catch (error) {
        problems.push(`${label}: the exchange failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return { cases: cases.length, byCategory, problems };
}

/** Short text of a value for case names (long strings cut). */
export function brief(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}…(${text.length} chars)` : text;
}
