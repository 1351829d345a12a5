// The inspector page: plain JavaScript, no build. Every call to the agent goes
// through the inspector's Node side (/api/...), which uses @taskwire/client.
// Credentials live in this module's memory only (never in storage or the URL).
import { $, api, el, errorText, INTERRUPTED, notice, post, session, TERMINAL, TOKEN } from './common.js';
import { setupTasks } from './tasks.js';

// ---- card and transports

function showCard(report) {
  const card = report.card;
  $('#card-version').textContent = report.cardVersion ? `v${report.cardVersion} card` : '';
  $('#card-summary').textContent = card ? `${card.name ?? '(no name)'} ${card.version ?? ''}: ${card.description ?? ''} (${report.cardUrl}, HTTP ${report.httpStatus})` : `No usable card at ${report.cardUrl}`;
  const rows = report.problems.map((p) => el('tr', { 'data-severity': p.severity, 'data-path': p.path }, el('td', {}, p.severity), el('td', {}, p.path), el('td', {}, p.rule), el('td', {}, p.message)));
  $('#card-problems tbody').replaceChildren(...rows);
  $('#card-problems').hidden = rows.length === 0;
  $('#choices').replaceChildren(
    ...report.choices.map((c) => el('li', { 'data-client': c.client }, el('b', {}, c.client === 'inspector' ? 'This inspector (Node, every transport)' : 'createClient in a browser (fetch transports)'), el('ul', {}, c.reasons.map((r) => el('li', {}, r))))),
  );
  // Each redirect of the card request: followed on the card's origin, shown and not followed to another one.
  $('#redirects').replaceChildren(...(report.redirects ?? []).map((r) => el('li', { 'data-followed': r.followed }, `HTTP ${r.status} ${r.from} -> ${r.to || '(no Location)'}: ${r.followed ? 'followed (same origin)' : 'not followed'}`)));
  $('#redirects').hidden = !report.redirects?.length;
  $('#card-raw').textContent = JSON.stringify(report.raw, null, 2);
  $('#probes tbody').replaceChildren(
    ...report.probes.map((p) =>
      el('tr', { 'data-status': p.status, 'data-binding': p.binding }, el('td', {}, p.binding), el('td', {}, p.url), el('td', {}, p.status), el('td', {}, p.acceptedVersion ?? '-'), el('td', {}, p.latencyMs === undefined ? '-' : `${p.latencyMs} ms`), el('td', {}, p.detail)),
    ),
  );
  const options = (card?.supportedInterfaces ?? []).map((i, index) => el('option', { value: index }, `${i.protocolBinding} ${i.protocolVersion}`));
  $('#iface').replaceChildren(el('option', { value: '' }, "the client's pick"), ...options);
}

/** The origin of `url` (parsed: the agent chose it, never trusted). */
const originOf = (url) => new URL(url).origin;

// A card that names a client-credentials token URL is offered, with its origin, never filled in by itself:
// the client id and secret would go there, to a place the agent chose.
function offerCardTokenUrl(card) {
  const grant = Object.values(card?.securitySchemes ?? {}).map((scheme) => scheme.oauth2SecurityScheme?.flows?.clientCredentials).find(Boolean);
  // As the URL parser writes it: no line breaks, spaces or bidi characters of the agent's reach the page or the question.
  const url = typeof grant?.tokenUrl === 'string' && URL.canParse(grant.tokenUrl) ? new URL(grant.tokenUrl).href : '';
  session.cardTokenUrl = url;
  $('#card-token-origin').textContent = url ? originOf(url) : '';
  $('#card-token-url').hidden = !url || $('#token-url').value.trim() === url;
}

function useCardTokenUrl() {
  const url = session.cardTokenUrl;
  if (!url) return;
  if (!confirm(`Your client id and secret would be sent to ${originOf(url)}.\n\nThe agent's card names this token URL: ${url}\n\nUse it?`)) return;
  $('#token-url').value = url;
  $('#card-token-url').hidden = true;
}

async function inspect(event) {
  event?.preventDefault();
  session.url = $('#agent-url').value.trim();
  const tokenUrl = $('#token-url').value.trim();
  const clientCredentials = tokenUrl ? { tokenUrl, clientId: $('#client-id').value, clientSecret: $('#client-secret').value, scope: $('#scope').value || undefined } : undefined;
  const trustedOrigins = $('#trusted-origins').value.split(/[\s,]+/).filter(Boolean);
  session.credentials = { apiKey: $('#api-key').value || undefined, bearer: $('#bearer').value || undefined, trustedOrigins, clientCredentials };
  notice('');
  document.body.dataset.inspected = 'false';
  try {
    const report = await api('/api/inspect', {});
    session.card = report.card;
    showCard(report);
    offerCardTokenUrl(report.card);
    for (const id of ['#run-checks', '#list-tasks', '#get-task', '#push-list', '#push-create']) $(id).disabled = !report.card;
  } catch (error) {
    notice(`Could not inspect ${session.url}: ${error.message}`);
  }
  document.body.dataset.inspected = 'true';
}

// ---- conversation: the task as it evolves, and the raw timeline

function applyEvent(response) {
  const task = session.task;
  if (response.task) session.task = structuredClone(response.task);
  else if (response.message) {
    if (task) task.history = [...(task.history ?? []), response.message];
    else session.task = { id: response.message.taskId ?? '', contextId: response.message.contextId ?? '', status: { state: '' }, history: [response.message], artifacts: [] };
  } else if (response.statusUpdate && task) {
    task.status = response.statusUpdate.status;
    if (response.statusUpdate.status.message) task.history = [...(task.history ?? []), response.statusUpdate.status.message];
  } else if (response.artifactUpdate && task) {
    const { artifact, append } = response.artifactUpdate;
    const list = (task.artifacts ??= []);
    const at = list.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at < 0) list.push(structuredClone(artifact));
    else if (append) list[at].parts.push(...artifact.parts);
    else list[at] = structuredClone(artifact);
  }
  // A2A 1.1: an update event carries the task's generation after it.
  const generation = response.statusUpdate?.generation ?? response.artifactUpdate?.generation;
  if (session.task && generation !== undefined) session.task.generation = generation;
}

const partText = (p) => (p.text !== undefined ? p.text : p.data !== undefined ? JSON.stringify(p.data) : `[file ${p.filename ?? ''} ${p.mediaType ?? ''}]`);
const roleOf = (m) => (m.role === 'ROLE_AGENT' || m.role === 'agent' ? 'agent' : 'user');

function showTask() {
  const task = session.task;
  const state = task?.status?.state ?? '';
  $('#task-id').textContent = task?.id ?? '';
  $('#task-state').textContent = state.replace('TASK_STATE_', '').toLowerCase();
  $('#task-state').dataset.state = state;
  $('#task-generation').textContent = task?.generation !== undefined ? `generation ${task.generation}` : '';
  $('#history').replaceChildren(...(task?.history ?? []).map((m) => el('li', { 'data-role': roleOf(m) }, `${roleOf(m)}: ${m.parts.map(partText).join('')}`)));
  $('#artifacts').replaceChildren(
    ...(task?.artifacts ?? []).map((a) => el('div', { class: 'artifact', 'data-artifact-id': a.artifactId }, el('b', {}, a.name ?? a.artifactId), el('pre', {}, a.parts.map(partText).join('')))),
  );
  const live = task?.id && !TERMINAL.has(state);
  $('#cancel').disabled = !live;
  $('#resubscribe').disabled = !task?.id || TERMINAL.has(state);
  $('#route').textContent = task?.id && INTERRUPTED.has(state) ? `The next message continues task ${task.id} (${state}).` : task?.id ? 'The next message starts a new task in the same context.' : '';
}

let timelineFlags = 0;
function addEntry(entry) {
  const flagged = entry.flags.length > 0;
  if (flagged) timelineFlags += 1;
  const row = el(
    'tr',
    { class: flagged ? 'flagged' : '', 'data-kind': entry.kind, 'data-state': entry.state ?? '', 'data-flags': entry.flags.join(' ') },
    el('td', {}, entry.index),
    el('td', {}, entry.sequence || '-'),
    el('td', {}, entry.atMs),
    el('td', {}, entry.kind),
    el('td', {}, (entry.state ?? '').replace('TASK_STATE_', '')),
    el('td', {}, entry.generation ?? ''),
    el('td', {}, entry.flags.join(', ')),
    el('td', {}, el('details', {}, el('summary', {}, 'json'), el('pre', {}, JSON.stringify(entry.response, null, 1)))),
  );
  const view = $('#timeline-scroll');
  const following = view.scrollHeight - view.scrollTop - view.clientHeight < 30;
  $('#timeline tbody').append(row);
  if (following) view.scrollTop = view.scrollHeight; // keep the newest event in view, unless the user scrolled up
  $('#timeline-summary').textContent = `${$('#timeline tbody').children.length} events${timelineFlags ? `, ${timelineFlags} flagged` : ''}`;
}

/** Opens a stream operation on the Node side and applies its events as they come (SSE over a POST). */
async function openStream(method, params) {
  const controller = new AbortController();
  session.stream = controller;
  document.body.dataset.busy = 'true';
  $('#timeline tbody').replaceChildren();
  timelineFlags = 0;
  showTask();
  try {
    $('#activated').textContent = '';
    const response = await post('/api/stream', { method, params, ...asking() }, controller.signal);
    if (!response.ok) throw new Error((await response.json()).error?.message ?? `HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const kind = /^event: (.*)$/m.exec(frame)?.[1];
        const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null');
        if (kind === 'entry') {
          addEntry(data);
          applyEvent(data.response);
          showTask();
        } else if (kind === 'extensions') {
          $('#activated').textContent = `Extensions the agent activated: ${data.activated.join(', ') || 'none'}`;
        } else if (kind === 'error') notice(`The stream failed: ${errorText(data)}`);
      }
    }
  } catch (error) {
    if (!controller.signal.aborted) notice(`The stream failed: ${error.message}`);
  } finally {
    // A resubscription may have replaced this stream already: then the page is still busy with that one.
    if (session.stream === controller) {
      session.stream = undefined;
      document.body.dataset.busy = 'false';
    }
    showTask();
  }
}

/** What the composer asks the agent for besides the message: extensions and A2A 1.1. */
function asking() {
  const extensions = $('#extensions').value.split(',').map((uri) => uri.trim()).filter(Boolean);
  return { ...(extensions.length && { extensions }), ...($('#v11').checked && { version: '1.1' }) };
}

async function partOf() {
  const kind = $('#part-kind').value;
  if (kind === 'data') return { data: JSON.parse($('#message').value) };
  if (kind === 'file') {
    const file = $('#file').files[0];
    if (!file) throw new Error('choose a file');
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return { raw: btoa(binary), mediaType: file.type || 'application/octet-stream', filename: file.name };
  }
  return { text: $('#message').value };
}

async function send(event) {
  event.preventDefault();
  if (!session.url || session.stream) return;
  notice('');
  let part;
  try {
    part = await partOf();
  } catch (error) {
    return notice(`Cannot send: ${error.message}`);
  }
  const task = session.task;
  const continues = task?.id && INTERRUPTED.has(task.status?.state);
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [part], ...(task?.contextId && { contextId: task.contextId }), ...(continues && { taskId: task.id }), ...(task?.id && !continues && { referenceTaskIds: [task.id] }) };
  if (!continues) session.task = undefined;
  $('#message').value = '';
  await openStream('SendStreamingMessage', { message });
}

async function cancel() {
  const id = session.task?.id;
  if (!id) return;
  const answer = await api('/api/call', { method: 'CancelTask', params: { id } }).catch((error) => ({ error: { message: error.message } }));
  if (answer.error) notice(`CancelTask: ${errorText(answer.error)}`);
  else if (!session.stream) {
    session.task = answer.result;
    showTask();
  }
}

async function resubscribe() {
  const id = session.task?.id;
  if (!id) return;
  session.stream?.abort(); // drop the stream being read, as a lost connection would
  await openStream('SubscribeToTask', { id });
}

// ---- checks and tasks

async function runChecks() {
  $('#run-checks').disabled = true;
  document.body.dataset.checking = 'true';
  $('#check-results').replaceChildren(el('li', {}, 'Running...'));
  try {
    const results = await api('/api/checks', { quickText: $('#quick-text').value, slowText: $('#slow-text').value });
    $('#check-results').replaceChildren(
      ...results.map((r) => el('li', { 'data-status': r.status, 'data-check': r.id }, el('span', { class: 'mark' }, { passed: 'PASS', failed: 'FAIL', 'not-run': 'SKIP' }[r.status]), ` ${r.name}`, el('ul', {}, r.evidence.map((e) => el('li', {}, e))))),
    );
  } catch (error) {
    $('#check-results').replaceChildren(el('li', { 'data-status': 'failed' }, error.message));
  }
  document.body.dataset.checking = 'false';
  $('#run-checks').disabled = false;
}

$('#agent-form').addEventListener('submit', inspect);
$('#use-card-token-url').addEventListener('click', useCardTokenUrl);
setupTasks();
$('#composer').addEventListener('submit', send);
$('#cancel').addEventListener('click', cancel);
$('#resubscribe').addEventListener('click', resubscribe);
$('#new-task').addEventListener('click', () => {
  session.task = undefined;
  showTask();
});
$('#part-kind').addEventListener('change', () => ($('#file').hidden = $('#part-kind').value !== 'file'));
$('#run-checks').addEventListener('click', runChecks);

const given = new URLSearchParams(location.search).get('agent');
document.body.dataset.ready = 'true';
if (!TOKEN) notice('Open the URL that taskwire inspect printed: its token (?token=...) is what lets this page use the inspector.');
else if (given) {
  $('#agent-url').value = given;
  inspect().catch((error) => notice(error.message));
}
