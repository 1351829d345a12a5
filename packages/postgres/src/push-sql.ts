/** The push config store's statements for schema `S` (quoted), keeping at most `maxDeadLetters` dead letters. */
export function pushStatements(S: string, maxDeadLetters: number) {
  const advance = `UPDATE ${S}.push_configs SET delivered = $3 WHERE task_id = $1 AND config_id = $2 AND delivered < $3`;
  const columns = 'owner, delivered, config';
  /** The config `c` is behind its task: events after its cursor are owed. */
  const owed = `EXISTS (SELECT 1 FROM ${S}.tasks t WHERE t.id = c.task_id AND t.last_sequence > c.delivered)`;
  return {
    put: `INSERT INTO ${S}.push_configs (task_id, config_id, owner, delivered, config) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (task_id, config_id) DO UPDATE
      SET owner = EXCLUDED.owner, config = EXCLUDED.config, delivered = greatest(${S}.push_configs.delivered, EXCLUDED.delivered)
      RETURNING delivered`,
    get: `SELECT ${columns} FROM ${S}.push_configs WHERE task_id = $1 AND config_id = $2`,
    list: `SELECT ${columns} FROM ${S}.push_configs WHERE task_id = $1 ORDER BY config_id`,
    all: `SELECT ${columns} FROM ${S}.push_configs ORDER BY task_id, config_id`,
    keys: `SELECT task_id, config_id FROM ${S}.push_configs ORDER BY task_id, config_id`,
    taskKeys: `SELECT task_id, config_id FROM ${S}.push_configs WHERE task_id = $1 ORDER BY config_id`,
    delete: `DELETE FROM ${S}.push_configs WHERE task_id = $1 AND config_id = $2`,
    deleteTask: `DELETE FROM ${S}.push_configs WHERE task_id = $1`,
    advance,
    // One statement: the letter, its config's cursor past it, and the oldest letters past the bound dropped.
    // $1 task, $2 config, $3 cursor target, $4 sequence, $5 when, $6 the letter's JSON.
    deadLetter:
      maxDeadLetters > 0
        ? `WITH letter AS (
            INSERT INTO ${S}.push_dead_letters (task_id, config_id, sequence, given_up_at, letter) VALUES ($1, $2, $4, $5, $6) RETURNING id
          ), advanced AS (${advance}), trimmed AS (
            DELETE FROM ${S}.push_dead_letters WHERE id <= (SELECT id - ${maxDeadLetters} FROM letter)
          )
          SELECT 1`
        : `WITH advanced AS (${advance}) SELECT $4::bigint, $5::timestamptz, $6::text`,
    // Delivery claims, for replicas: $1 task, $2 config, $3 holder, $4 ttl ms. Model: `pushClaimTransition`, `renewPushClaimsTransition`
    // and `pushAdvanceTransition` (for `advance`; `expiredClaims`: `expiredPushClaimsTransition`) in packages/cluster-model, whose sql-tie test runs them.
    claim: `UPDATE ${S}.push_configs SET claim_holder = $3, claim_expires_at = now() + $4::double precision * interval '1 millisecond'
      WHERE task_id = $1 AND config_id = $2 AND (claim_holder IS NULL OR claim_holder = $3 OR claim_expires_at < now())`,
    // A release that leaves events owed (a delivery stopping cleanly mid-way) hands the claim over: it expires now, held, so the others' sweep finds it.
    release: `UPDATE ${S}.push_configs c SET
        claim_holder = CASE WHEN ${owed} THEN c.claim_holder END,
        claim_expires_at = CASE WHEN ${owed} THEN now() END
      WHERE c.task_id = $1 AND c.config_id = $2 AND c.claim_holder = $3`,
    // $1 holder, $2 task ids, $3 config ids, $4 ttl ms: renews the holder's claims on those configs; returns those it no longer holds.
    renewClaims: `WITH held AS (
        SELECT * FROM unnest($2::text[], $3::text[]) AS h(task_id, config_id)
      ), renewed AS (
        UPDATE ${S}.push_configs c SET claim_expires_at = now() + $4::double precision * interval '1 millisecond'
        FROM held h WHERE c.task_id = h.task_id AND c.config_id = h.config_id AND c.claim_holder = $1
        RETURNING c.task_id, c.config_id
      )
      SELECT h.task_id, h.config_id FROM held h
      WHERE NOT EXISTS (SELECT 1 FROM renewed r WHERE r.task_id = h.task_id AND r.config_id = h.config_id)`,
    expiredClaims: `SELECT task_id, config_id FROM ${S}.push_configs WHERE claim_holder IS NOT NULL AND claim_expires_at < now() ORDER BY claim_expires_at LIMIT 1000`,
    // Sealed push secrets in the legacy format (`tw1:`), and their compare-and-set reseal: $1 task, $2 config, $3 owner, $4 config read, $5 resealed.
    legacySealed: `SELECT task_id, config_id, ${columns} FROM ${S}.push_configs WHERE config LIKE '%"sealed":"tw1:%'`,
    reseal: `UPDATE ${S}.push_configs SET config = $5 WHERE task_id = $1 AND config_id = $2 AND owner = $3 AND config = $4`,
    /** The newest `$n` letters (all with null), oldest first, optionally of one task. */
    letters: (byTask: boolean) =>
      `SELECT letter FROM (SELECT id, letter FROM ${S}.push_dead_letters${byTask ? ' WHERE task_id = $2' : ''} ORDER BY id DESC LIMIT $1) newest ORDER BY id`,
  };
}
