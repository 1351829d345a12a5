import type { Artifact, Message, Part, Task } from '@taskwire/core';
import { textOf } from '@taskwire/core';

/** One artifact of the remote task, as the calling model reads it. */
export interface A2AToolArtifact {
  readonly name?: string;
  /** Its text parts, joined. */
  readonly text?: string;
  /** Its data parts' values. */
  readonly data?: readonly unknown[];
  /** Its files: url or raw (base64) with their media types. */
  readonly files?: readonly { readonly url?: string; readonly raw?: string; readonly mediaType?: string; readonly filename?: string }[];
}

/**
 * What `a2aTool` returns to the calling model:
 * - `state`: the remote task's state without the prefix (`completed`,
 *   `input-required`, `failed`, ...; `message` when the agent answered with
 *   a bare message and made no task);
 * - `taskId` / `contextId`: the task's ids (pass `taskId` back to answer an
 *   `input-required` task);
 * - `text`: the agent's answer: its artifacts' text, else its last message;
 * - `message`: the agent's last status message, if any;
 * - `question`: for `input-required` and `auth-required`, what it asks;
 * - `artifacts`: each artifact's name, text, data and files.
 *
 * While the task runs, the tool yields this shape for the task as it
 * stands (the SDK marks those results preliminary).
 */
export interface A2AToolOutput {
  readonly state: string;
  readonly taskId?: string;
  readonly contextId?: string;
  readonly text: string;
  readonly message?: string;
  readonly question?: string;
  readonly artifacts?: readonly A2AToolArtifact[];
}

function artifactOutput(artifact: Artifact): A2AToolArtifact {
  const texts: string[] = [];
  const data: unknown[] = [];
  const files: { url?: string; raw?: string; mediaType?: string; filename?: string }[] = [];
  for (const part of artifact.parts as readonly Part[]) {
    if ('text' in part) texts.push(part.text);
    else if ('data' in part) data.push(part.data);
    else files.push({ ...('url' in part ? { url: part.url } : { raw: part.raw }), ...(part.mediaType && { mediaType: part.mediaType }), ...(part.filename && { filename: part.filename }) });
  }
  return {
    ...(artifact.name !== undefined && { name: artifact.name }),
    ...(texts.length > 0 && { text: texts.join('') }),
    ...(data.length > 0 && { data }),
    ...(files.length > 0 && { files }),
  };
}

/** The tool output of a task as it stands (or of a bare message answer, when `task` is undefined). */
export function taskOutput(task: Task | undefined, reply?: Message): A2AToolOutput {
  if (!task) return { state: 'message', ...(reply?.contextId && { contextId: reply.contextId }), text: reply ? textOf(reply) : '' };
  const state = task.status.state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-');
  const message = task.status.message ? textOf(task.status.message) : undefined;
  const artifacts = (task.artifacts ?? []).map(artifactOutput);
  const artifactText = artifacts.map((a) => a.text ?? '').filter(Boolean).join('\n');
  const asks = state === 'input-required' || state === 'auth-required';
  return {
    state,
    taskId: task.id,
    contextId: task.contextId,
    text: artifactText || message || '',
    ...(message && { message }),
    ...(asks && { question: `${message ?? 'The agent needs input.'} (answer with this tool, passing taskId "${task.id}")` }),
    ...(artifacts.length > 0 && { artifacts }),
  };
}
