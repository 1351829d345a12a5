import type { StreamEvent } from '@taskwire/core';
import type { ConversationView } from '../view/reduce.js';
import { messageText, partsText, stateLabel } from './format.js';

/**
 * Prints stream events for people: the task id first (to cancel or watch
 * it), then state changes, agent messages, and artifact chunks as they
 * come, each artifact between its name line and a closing `---` line so
 * that its text never runs into what the agent says next. The chunks of
 * one streamed artifact (`append`) stay one text: what the agent says
 * while the artifact is still open (no `lastChunk` yet) is printed right
 * after its closing line.
 */
export class EventPrinter {
  private taskId: string | undefined;
  /** The artifact whose text is being printed, and whether the last chunk ended its line. */
  private open: { id: string; lineEnded: boolean } | undefined;
  /** Lines held back while an artifact is open. */
  private held: string[] = [];

  /** @param write prints text to the user (a command's `print`, which strips control characters) */
  constructor(private readonly write: (text: string) => void) {}

  /** Prints what `event` (which took the view from `before` to `after`) tells the user. */
  print(before: ConversationView, after: ConversationView, event: StreamEvent): void {
    const r = event.response;
    if (after.taskId !== undefined && after.taskId !== this.taskId) {
      this.close();
      this.taskId = after.taskId;
      this.write(`task ${after.taskId}\n`);
    }
    if ('artifactUpdate' in r) {
      const { artifact, append, lastChunk } = r.artifactUpdate;
      if (!append || this.open?.id !== artifact.artifactId) {
        this.close();
        this.write(`--- ${artifact.name ?? artifact.artifactId} ---\n`);
      }
      const text = partsText(artifact.parts);
      this.write(text);
      this.open = { id: artifact.artifactId, lineEnded: text === '' ? (this.open?.lineEnded ?? true) : text.endsWith('\n') };
      if (lastChunk) this.close();
      return;
    }
    const said = 'message' in r ? r.message : 'statusUpdate' in r ? r.statusUpdate.status.message : undefined;
    if (said) this.line(`${messageText(said)}\n`);
    if (after.state !== before.state) this.line(`(${stateLabel(after.state)})\n`);
  }

  /** Prints a line of its own now, or after the open artifact's closing line. */
  private line(text: string): void {
    if (this.open) this.held.push(text);
    else this.write(text);
  }

  /** Ends the artifact being printed, if any, then prints the lines held back meanwhile. */
  close(): void {
    if (!this.open) return;
    this.write(this.open.lineEnded ? '---\n' : '\n---\n');
    this.open = undefined;
    for (const text of this.held.splice(0)) this.write(text);
  }
}
