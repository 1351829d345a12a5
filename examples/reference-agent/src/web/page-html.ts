/** The page's stylesheet (inline: the page is one HTML document and one script). */
const STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5f6b7a; --line: #dde2ea; --bg: #f5f7fa; --user: #e3eefc; --agent: #ffffff; --accent: #2f6fde; }
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { display: flex; flex-direction: column; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: var(--ink); background: var(--bg); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, "Liberation Mono", monospace; font-size: 12.5px; }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 10px 20px; background: #fff; border-bottom: 1px solid var(--line); }
.bar h1 { font-size: 17px; margin: 0; }
#agent { color: var(--muted); font-size: 13px; flex: 1 1 0; min-width: 120px; }
#key-form { display: flex; gap: 6px; align-items: center; font-size: 13px; color: var(--muted); }
#key-form input { width: 130px; }
input, button { font: inherit; }
input { padding: 6px 9px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
button { padding: 6px 12px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); cursor: pointer; }
button:disabled { opacity: .45; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
#notice { margin: 10px 20px 0; padding: 8px 12px; border-radius: 6px; background: #fdecea; color: #8a1c13; border: 1px solid #f5c2bd; }
#log { flex: 1; overflow-y: auto; padding: 16px 20px; display: flex; flex-direction: column; gap: 14px; }
#log > * { width: 100%; max-width: 860px; margin: 0 auto; }
.empty { color: var(--muted); text-align: center; margin-top: 40px; }
.turn { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px 12px; display: flex; flex-direction: column; gap: 8px; }
.turn > header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; font-size: 12.5px; color: var(--muted); border-bottom: 1px dashed var(--line); padding-bottom: 6px; }
.turn > header .label { text-transform: uppercase; letter-spacing: .05em; font-size: 11px; }
.task-id { color: var(--ink); }
.refs code { background: #eef1f6; padding: 1px 5px; border-radius: 4px; }
.state { padding: 1px 8px; border-radius: 999px; font-weight: 600; font-size: 12px; background: #eceff4; color: #46505f; }
.state-working, .state-submitted, .state-sending { background: #e6f0ff; color: #1f5bc4; }
.state-input-required, .state-auth-required { background: #fff4d6; color: #8a5a00; }
.state-completed { background: #e3f6e8; color: #17723a; }
.state-failed, .state-rejected { background: #fdecea; color: #a3261b; }
.state-canceled { background: #efeff1; color: #5a5f6b; }
.msg { max-width: 85%; padding: 7px 11px; border-radius: 10px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--user); }
.msg.agent { align-self: flex-start; background: var(--agent); border: 1px solid var(--line); }
.msg pre, .artifact pre { margin: 0; white-space: pre-wrap; }
.artifact { border-left: 3px solid var(--accent); background: #f8faff; padding: 6px 10px; border-radius: 0 6px 6px 0; }
.artifact-name { font-size: 12px; font-weight: 600; color: var(--accent); }
.artifact-name .streaming { font-weight: 400; color: var(--muted); }
.artifact-body { white-space: pre-wrap; max-height: 220px; overflow-y: auto; }
.progress { display: flex; align-items: center; gap: 8px; font-size: 12.5px; color: var(--muted); }
.progress progress { flex: 1; max-width: 320px; height: 10px; }
footer { background: #fff; border-top: 1px solid var(--line); padding: 10px 20px 12px; }
footer > * { max-width: 860px; margin: 0 auto; }
#examples { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; font-size: 12.5px; color: var(--muted); align-items: center; }
#examples button { padding: 2px 9px; font-size: 12.5px; border-radius: 999px; background: #f3f5f9; }
#composer { display: flex; gap: 8px; }
#composer input { flex: 1; }
#route { font-size: 12.5px; color: var(--muted); margin-top: 6px; }
`;

const EXAMPLES = ['provide a sunset quote', 'insta', 'make it shorter', 'slow 100', 'echo hello', 'auth', 'fail'];

/**
 * The chat page's HTML: a header (agent, API key, new conversation), the
 * notice line, the log of turns, and the composer with example inputs and
 * the next message's routing. `scriptPath` is where its bundled script is
 * served. Static: everything the agent says is added by the script as text.
 */
export function pageHtml(scriptPath: string): string {
  const examples = EXAMPLES.map((e) => `<button type="button" data-example="${e}">${e}</button>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Taskwire reference agent</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
<script type="module" src="${scriptPath}"></script>
</head>
<body data-ready="false" data-busy="false" data-reconnecting="false">
<div class="bar">
  <h1 id="title">Taskwire reference agent</h1>
  <span id="agent">connecting…</span>
  <form id="key-form"><label for="api-key">API key</label><input id="api-key" type="password" autocomplete="off" placeholder="if --api-key"><button type="submit">Use</button></form>
  <button id="new-conversation" type="button">New conversation</button>
</div>
<div id="notice" role="alert" hidden></div>
<main id="log" aria-live="polite"></main>
<footer>
  <div id="examples">Try: ${examples}</div>
  <form id="composer">
    <input id="input" autocomplete="off" placeholder="Message the agent" aria-label="Message">
    <button id="send" class="primary" type="submit" disabled>Send</button>
    <button id="cancel" type="button" disabled>Cancel task</button>
  </form>
  <div id="route"></div>
</footer>
</body>
</html>
`;
}
