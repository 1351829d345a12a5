import { open, rename, unlink } from 'node:fs/promises';
import { syncDirectory } from '../store/file/compaction.js';
import { encodeFrame } from '../store/file/frame.js';
import { writeFully, type LogWriter } from '../store/file/log-writer.js';
import type { LogKind } from '../store/file/open-log.js';
import type { DeadLetterMatch, PushDeadLetter, StoredPushConfig } from './push-config-store.js';
import type { PushState } from './push-state.js';

/** The push log's file name inside the task store's directory. */
export const PUSH_LOG = 'push.log';

/** The push log holds webhook credentials: created readable by its owner only. */
const SECRET_FILE_MODE = 0o600;

/** Version of the push log's records. */
export const PUSH_LOG_FORMAT = 1;

/**
 * One record of the push log (a checksummed frame holding one JSON line, the
 * framing of the task log): the header, a config put, a config delete, a
 * task's configs removed, a cursor advance, a dead letter (which advances
 * its config's cursor too), the dead letters matching `m` removed (`k`,
 * replayed against the letters recorded before it; logs written before it
 * existed still read, the format stays 1).
 */
export type PushRecord =
  | { readonly t: 'h'; readonly log: 'push'; readonly format: number }
  | { readonly t: 'p'; readonly e: StoredPushConfig }
  | { readonly t: 'd'; readonly task: string; readonly id: string }
  | { readonly t: 'r'; readonly task: string }
  | { readonly t: 'a'; readonly task: string; readonly id: string; readonly s: number }
  | { readonly t: 'x'; readonly l: PushDeadLetter }
  | { readonly t: 'k'; readonly m: DeadLetterMatch };

/** A record as a frame. */
export function pushFrame(record: PushRecord): Buffer {
  return encodeFrame(JSON.stringify(record));
}

/**
 * Applies one record to `state`; returns what `put` stored, for a put, and
 * how many dead letters were removed, for a removal. Throws on a record it
 * cannot read.
 */
export function applyPushRecord(state: PushState, record: PushRecord): StoredPushConfig | number | undefined {
  switch (record.t) {
    case 'h':
      if (record.log !== 'push') throw new Error(`its header is not a push log's (a task log? use ${PUSH_LOG} files only)`);
      if (record.format !== PUSH_LOG_FORMAT) throw new Error(`push log format ${record.format} is not supported (this version reads ${PUSH_LOG_FORMAT})`);
      return undefined;
    case 'p':
      return state.put(record.e);
    case 'd':
      state.delete(record.task, record.id);
      return undefined;
    case 'r':
      state.deleteTask(record.task);
      return undefined;
    case 'a':
      state.advance(record.task, record.id, record.s);
      return undefined;
    case 'x':
      state.deadLetter(record.l);
      return undefined;
    case 'k':
      return state.removeDeadLetters(record.m);
    default:
      throw new Error(`unknown record type ${JSON.stringify((record as { t: unknown }).t)}`);
  }
}

const header = (): Buffer => pushFrame({ t: 'h', log: 'push', format: PUSH_LOG_FORMAT });

/** The push log as {@link openLog} opens it: replayed into `state`; created readable by its owner only. */
export function pushLogKind(state: PushState): LogKind {
  return {
    name: 'push log',
    apply: (payload) => void applyPushRecord(state, JSON.parse(payload) as PushRecord),
    header,
    // Only the header is ever written at offset 0: a larger file with no valid first record is not a torn push log.
    maxTornHeaderBytes: header().length - 1,
    mode: SECRET_FILE_MODE,
  };
}

/**
 * Rewrites the push log as a header, one put per config (with its cursor)
 * and one record per kept dead letter, between two batches of `writer` (so
 * the state and the file agree), and returns the new size. Crash-safe: the
 * new file is synced before it is renamed over the old one; a failure before
 * the rename leaves the old log in use, one after it fails the writer.
 */
export async function compactPushLog(dir: string, path: string, writer: LogWriter, state: PushState, fsync: boolean): Promise<number> {
  const tmpPath = `${path}.compact`;
  let size = 0;
  await writer.exclusive(async () => {
    const frames = [header(), ...state.all().map((e) => pushFrame({ t: 'p', e })), ...state.letters.map((l) => pushFrame({ t: 'x', l }))];
    const data = Buffer.concat(frames);
    const tmp = await open(tmpPath, 'w', SECRET_FILE_MODE);
    let renamed = false;
    try {
      await writeFully(tmp, data, 0);
      if (fsync) await tmp.datasync();
      await rename(tmpPath, path);
      renamed = true;
      if (fsync) await syncDirectory(dir);
    } catch (error) {
      await tmp.close().catch(() => undefined);
      if (!renamed) {
        await unlink(tmpPath).catch(() => undefined);
        throw error;
      }
      throw writer.fail(error);
    }
    const old = writer.swap(tmp, data.length);
    await old.close().catch(() => undefined);
    size = data.length;
  });
  return size;
}
