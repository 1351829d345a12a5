// The chat page's script (bundled for browsers at server start). It talks to
// the agent that served it through @taskwire/client: a Conversation picks the
// task ids (seed 000), the conversation-view reducer builds what is shown,
// and the context id in localStorage lets a reload rebuild the chat from
// ListTasks (seed 002).
import type { A2AClient, Conversation } from '@taskwire/client';
import { untilSettled } from '@taskwire/client';
import type { StreamEvent } from '@taskwire/core';
import { isSettled } from '@taskwire/core';
import { connectToPageAgent, explain, loadContextTasks } from './connect.js';
import { describeRoute, renderLog } from './render.js';
import type { ChunkCounts, TaskStates } from './turns.js';
import { countChunks, stateLabel, trackState, turnsOf } from './turns.js';

const CONTEXT_KEY = 'taskwire.contextId';
const API_KEY = 'taskwire.apiKey';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  log: byId<HTMLElement>('log'),
  notice: byId<HTMLElement>('notice'),
  title: byId<HTMLElement>('title'),
  agent: byId<HTMLElement>('agent'),
  route: byId<HTMLElement>('route'),
  composer: byId<HTMLFormElement>('composer'),
  input: byId<HTMLInputElement>('input'),
  send: byId<HTMLButtonElement>('send'),
  cancel: byId<HTMLButtonElement>('cancel'),
  keyForm: byId<HTMLFormElement>('key-form'),
  key: byId<HTMLInputElement>('api-key'),
  fresh: byId<HTMLButtonElement>('new-conversation'),
};

let client: A2AClient | undefined;
let chat: Conversation | undefined;
const states: TaskStates = new Map();
const chunks: ChunkCounts = new Map();
/** The stream in flight (a send, or following a task that was running at reload). */
let running: AbortController | undefined;
let drawing = false;
/** True from a stream's drop until its next event (the client resumes it by itself). */
let reconnecting = false;

const RECONNECTING = 'The connection to the agent dropped: reconnecting…';

function notify(text: string): void {
  ui.notice.textContent = text;
  ui.notice.hidden = text === '';
}

function setReconnecting(value: boolean): void {
  if (value === reconnecting) return;
  reconnecting = value;
  document.body.dataset.reconnecting = String(value);
  if (value) notify(RECONNECTING);
  else if (ui.notice.textContent === RECONNECTING) notify('');
}

function draw(): void {
  drawing = false;
  const view = chat?.view;
  renderLog(ui.log, view ? turnsOf(view, states, chunks) : []);
  if (chat?.contextId) localStorage.setItem(CONTEXT_KEY, chat.contextId);
  const busy = running !== undefined;
  const cancellable = busy && view?.streaming === true && chat?.taskId !== undefined;
  ui.send.disabled = busy || !chat;
  ui.cancel.disabled = !cancellable;
  const working = cancellable ? `The agent is working on task ${chat!.taskId!.slice(0, 8)}: wait for it, or cancel it.` : undefined;
  ui.route.textContent = working ?? (chat ? describeRoute(chat.next(), stateLabel(chat.state)) : '');
  document.body.dataset.busy = String(busy);
  document.body.dataset.ready = String(chat !== undefined);
}

/** Draws at the next frame (many stream events in one frame draw once). */
function render(): void {
  if (drawing) return;
  drawing = true;
  requestAnimationFrame(draw);
}

/**
 * Shows a stream's events as they come. `observe` is false for
 * `chat.stream`, which records its events in the conversation itself.
 * Resolves with how many events came (0 when the agent never got the
 * message) and whether the stream failed.
 */
async function follow(open: (signal: AbortSignal) => AsyncIterable<StreamEvent>, observe: boolean): Promise<{ events: number; failed: boolean }> {
  const controller = new AbortController();
  running = controller;
  render();
  let events = 0;
  let failed = false;
  try {
    for await (const event of open(controller.signal)) {
      events++;
      setReconnecting(false);
      if (observe) chat?.observe(event);
      trackState(states, event);
      countChunks(chunks, event);
      render();
    }
  } catch (error) {
    failed = !controller.signal.aborted;
    setReconnecting(false);
    if (failed) notify(explain(error));
  } finally {
    if (running === controller) running = undefined;
    render();
  }
  return { events, failed };
}

/** Starts afresh, or rebuilds the conversation saved in this browser from ListTasks. */
async function restore(connected: A2AClient): Promise<void> {
  states.clear();
  chunks.clear();
  const contextId = localStorage.getItem(CONTEXT_KEY) ?? undefined;
  const restored = connected.conversation(contextId ? { contextId } : {});
  const tasks = contextId ? await loadContextTasks(connected, contextId) : [];
  for (const task of tasks) {
    restored.observe({ task });
    trackState(states, { task });
    countChunks(chunks, { task });
  }
  chat = restored;
  render();
  const last = tasks[tasks.length - 1];
  if (last && !isSettled(last.status.state)) {
    // Until the turn ends (SubscribeToTask alone would follow the task through input-required).
    void follow((signal) => untilSettled(connected.subscribeToTask({ id: last.id }, { signal })), true);
  }
}

async function connect(): Promise<void> {
  running?.abort();
  chat = undefined;
  const previous = client;
  client = undefined;
  render();
  await previous?.close();
  try {
    const connected = await connectToPageAgent(location.origin, ui.key.value.trim(), () => setReconnecting(true));
    client = connected;
    ui.title.textContent = connected.card?.name ?? 'A2A agent';
    const iface = connected.interface;
    ui.agent.textContent = iface ? `${iface.protocolBinding} ${connected.version} · ${new URL(iface.url).pathname}` : '';
    notify('');
    await restore(connected);
  } catch (error) {
    notify(explain(error));
  }
}

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.input.value.trim();
  const current = chat;
  if (!text || !current || running) return;
  ui.input.value = '';
  notify('');
  void follow((signal) => current.stream(text, { signal }), false).then(({ events, failed }) => {
    // The agent never got it: give the message back, to send again.
    if (failed && events === 0 && ui.input.value === '') ui.input.value = text;
  });
});

ui.cancel.addEventListener('click', () => {
  const current = chat;
  if (!current) return;
  ui.cancel.disabled = true;
  current.cancel().then(
    (task) => {
      trackState(states, { task });
      render();
    },
    (error: unknown) => notify(explain(error)),
  );
});

ui.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  localStorage.setItem(API_KEY, ui.key.value.trim());
  void connect();
});

ui.fresh.addEventListener('click', () => {
  running?.abort();
  localStorage.removeItem(CONTEXT_KEY);
  states.clear();
  chunks.clear();
  chat = client?.conversation();
  notify('');
  render();
  ui.input.focus();
});

document.querySelectorAll<HTMLButtonElement>('button[data-example]').forEach((button) => {
  button.addEventListener('click', () => {
    ui.input.value = button.dataset.example ?? '';
    ui.input.focus();
  });
});

ui.key.value = localStorage.getItem(API_KEY) ?? '';
void connect();
