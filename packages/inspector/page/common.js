// What the inspector page's modules share: DOM helpers, the session (the
// agent, its card, the credentials: in memory only) and the call to the
// inspector's Node side.
export const $ = (selector) => document.querySelector(selector);

/** Makes an element; strings become text (never HTML). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  for (const child of children.flat()) node.append(child instanceof Node ? child : String(child ?? ''));
  return node;
}

/**
 * The session token: the URL the inspector printed carries it, and every API
 * call sends it back in a header (the API answers nothing without it).
 */
export const TOKEN = new URLSearchParams(location.search).get('token') ?? '';

export const session = { url: '', card: undefined, credentials: {}, task: undefined, stream: undefined, pageToken: '', cardTokenUrl: '' };
export const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
export const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

export function notice(text) {
  $('#notice').hidden = !text;
  $('#notice').textContent = text ?? '';
}

export function target() {
  const chosen = $('#iface').value;
  return { url: session.url, credentials: session.credentials, ...(chosen !== '' && { interface: Number(chosen) }) };
}

/** POSTs `body` (with the agent, credentials and interface) to the inspector's API, with the session token. */
export function post(path, body, signal) {
  return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-inspector-token': TOKEN }, body: JSON.stringify({ ...target(), ...body }), signal });
}

export async function api(path, body) {
  const response = await post(path, body);
  const value = await response.json();
  if (!response.ok) throw new Error(value.error?.message ?? `HTTP ${response.status}`);
  return value;
}

export const errorText = (error) => (error.code !== undefined ? `${error.kind} (${error.code}): ${error.message}` : error.message);
