// A Worker (bundled by drivers.test.ts, run by miniflare's workerd) that runs
// the store scenario on its D1 binding `DB` and answers the transcript as JSON.
import { createSqlitePushConfigStore, createSqliteTaskStore, d1Driver, type D1DatabaseLike } from '../src/index.js';
import { storeScenario } from './scenario.js';

export default {
  async fetch(_request: Request, env: { DB: D1DatabaseLike }): Promise<Response> {
    const driver = d1Driver(env.DB);
    const tasks = await createSqliteTaskStore({ driver });
    const transcript = await storeScenario(tasks, await createSqlitePushConfigStore({ driver }));
    return Response.json(transcript);
  },
};
