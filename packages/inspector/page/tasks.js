// The tasks panel: ListTasks with filters and pages, GetTask with a history
// length, push notification configs and what the local webhook received.
import { $, api, el, errorText, notice, session } from './common.js';

async function listTasks(event, next = false) {
  event?.preventDefault();
  if (!next) session.pageToken = '';
  const params = { pageSize: Number($('#page-size').value) || 10, historyLength: 0, ...($('#filter-context').value && { contextId: $('#filter-context').value }), ...($('#filter-status').value && { status: $('#filter-status').value }), ...(session.pageToken && { pageToken: session.pageToken }) };
  const answer = await api('/api/call', { method: 'ListTasks', params }).catch((error) => ({ error: { message: error.message } }));
  if (answer.error) return notice(`ListTasks: ${errorText(answer.error)}`);
  const { tasks, nextPageToken } = answer.result;
  $('#task-list tbody').replaceChildren(...tasks.map((t) => el('tr', { 'data-task-id': t.id }, el('td', {}, t.id), el('td', {}, t.contextId), el('td', {}, t.status.state.replace('TASK_STATE_', '')), el('td', {}, t.status.timestamp ?? ''))));
  session.pageToken = nextPageToken ?? '';
  $('#next-page').disabled = !session.pageToken;
  $('#task-list').dataset.listed = String(Number($('#task-list').dataset.listed ?? 0) + 1);
}

async function getTask(event) {
  event.preventDefault();
  const length = $('#history-length').value;
  const params = { id: $('#get-id').value.trim(), ...(length !== '' && { historyLength: Number(length) }) };
  const answer = await api('/api/call', { method: 'GetTask', params }).catch((error) => ({ error: { message: error.message } }));
  $('#got-task').textContent = answer.error ? errorText(answer.error) : JSON.stringify(answer.result, null, 2);
}

async function listPush() {
  const taskId = $('#push-task').value.trim();
  const answer = await api('/api/call', { method: 'ListTaskPushNotificationConfigs', params: { taskId } }).catch((error) => ({ error: { message: error.message } }));
  if (answer.error) return notice(`ListTaskPushNotificationConfigs: ${errorText(answer.error)}`);
  const rows = answer.result.configs.map((c) => {
    const remove = el('button', { type: 'button', class: 'delete-push' }, 'Delete');
    remove.addEventListener('click', () => deletePush(taskId, c.id).catch((error) => notice(error.message)));
    return el('tr', { 'data-config-id': c.id ?? '' }, el('td', {}, c.id ?? ''), el('td', {}, c.url), el('td', {}, c.token ?? ''), el('td', {}, remove));
  });
  $('#push-configs tbody').replaceChildren(...rows);
  $('#push-configs').dataset.listed = String(Number($('#push-configs').dataset.listed ?? 0) + 1);
}

async function deletePush(taskId, id) {
  const answer = await api('/api/call', { method: 'DeleteTaskPushNotificationConfig', params: { taskId, id } }).catch((error) => ({ error: { message: error.message } }));
  if (answer.error) notice(`DeleteTaskPushNotificationConfig: ${errorText(answer.error)}`);
  await listPush();
}

const summary = (body) => {
  const r = body && typeof body === 'object' ? body : {};
  const kind = Object.keys(r)[0] ?? 'text';
  const state = r.task?.status?.state ?? r.statusUpdate?.status?.state ?? '';
  return `${kind}${state ? ` ${state.replace('TASK_STATE_', '')}` : ''}`;
};

let polling;
async function showDeliveries() {
  const { url, deliveries } = await api('/api/webhook', {});
  $('#webhook-url').textContent = url;
  if (deliveries.length === $('#deliveries').children.length) return;
  $('#deliveries').replaceChildren(
    ...deliveries.map((d) => el('li', { 'data-summary': summary(d.body) }, `${d.at.slice(11, 23)} ${d.method} ${summary(d.body)}${d.headers['x-a2a-notification-token'] ? ` token ${d.headers['x-a2a-notification-token']}` : ''}`, el('details', {}, el('summary', {}, 'json'), el('pre', {}, JSON.stringify(d, null, 1))))),
  );
}

async function createPush(event) {
  event.preventDefault();
  const taskId = $('#push-task').value.trim();
  try {
    const { url } = await api('/api/webhook', {});
    $('#webhook-url').textContent = url;
    const token = $('#push-token').value;
    const answer = await api('/api/call', { method: 'CreateTaskPushNotificationConfig', params: { taskId, url, ...(token && { token }) } });
    if (answer.error) return notice(`CreateTaskPushNotificationConfig: ${errorText(answer.error)}`);
    polling ??= setInterval(() => showDeliveries().catch((error) => notice(`The webhook receiver: ${error.message}`)), 1000);
  } catch (error) {
    return notice(`CreateTaskPushNotificationConfig: ${error.message}`);
  }
  await listPush();
}


/** Wires the panel's forms and buttons. */
export function setupTasks() {
  $('#push-form').addEventListener('submit', createPush);
  $('#push-list').addEventListener('click', () => listPush().catch((error) => notice(error.message)));
  $('#list-form').addEventListener('submit', listTasks);
  $('#next-page').addEventListener('click', () => listTasks(undefined, true));
  $('#get-form').addEventListener('submit', getTask);
}
