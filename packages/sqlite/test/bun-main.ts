// Run by Bun (drivers.test.ts): the store scenario on bun:sqlite, its transcript printed as JSON.
import { createSqlitePushConfigStore, createSqliteTaskStore } from '../src/index.js';
import { bunSqlite } from '../src/bun.js';
import { storeScenario } from './scenario.js';

const driver = await bunSqlite(process.argv[2]!);
const tasks = await createSqliteTaskStore({ driver });
const transcript = await storeScenario(tasks, await createSqlitePushConfigStore({ driver }));
await tasks.close();
process.stdout.write(JSON.stringify(transcript));
