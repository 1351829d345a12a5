// The client conversation of the runtime tests, run by the runtime itself
// with @taskwire/client's main entry (fetch only): send, continue, stream,
// GetTask and a cancel, against the agent at the URL given as the first
// argument. Prints one JSON line of what it saw.
import { createClient } from '@taskwire/client';

const url = globalThis.Deno ? globalThis.Deno.args[0] : process.argv[2];
const client = await createClient(url);
const chat = client.conversation();
const first = await chat.send('weather please');
const reply = await chat.send('Lisbon');
const streamed = [];
for await (const event of chat.stream('and tomorrow?')) streamed.push(chat.view.state ?? event.sequence);
const got = await client.getTask({ id: reply.task.id });
const slow = client.conversation();
let working = 0;
for await (const event of slow.stream('slow')) {
  void event;
  if (slow.view.state === 'TASK_STATE_WORKING' && ++working === 2) await client.cancelTask({ id: slow.taskId });
}
const canceled = await client.getTask({ id: slow.taskId });
await client.close();
console.log(
  JSON.stringify({
    first: first.text,
    reply: reply.text,
    sameTask: reply.task.id === first.task.id,
    artifact: got.artifacts?.[0]?.parts,
    streamedLast: streamed.at(-1),
    got: got.status.state,
    canceled: canceled.status.state,
  }),
);
