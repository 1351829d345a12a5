// One build or pack of the workspace's packages at a time. tsup empties a
// package's dist/ before writing it, so two builds of the same package at
// once (`npm test` building while `npm run pack` packs, two terminals) leave
// each other a dist/ with files missing. Whoever builds or packs holds a
// lock directory (node_modules/.cache/taskwire-build.lock, with the holder's
// pid and what it does); the next one waits for it, saying whom it waits
// for. A lock whose holder is gone is taken over.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Set in the environment of the lock's holder, so that what it runs (pnpm pack's prepack) does not wait for it. */
export const HELD = 'TASKWIRE_BUILD_LOCK_HELD';

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function holderOf(lock) {
  try {
    return JSON.parse(readFileSync(join(lock, 'holder.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` (synchronous) holding the workspace's build lock and returns its
 * result; `what` says what the holder does, for those who wait. Waits while
 * another live process holds it (one line on standard error naming it);
 * runs `fn` at once when this process or a parent already holds it (the
 * `TASKWIRE_BUILD_LOCK_HELD` variable). Releases it when `fn` returns or
 * throws.
 * @template T
 * @param {string} root the workspace root
 * @param {string} what
 * @param {() => T} fn
 * @returns {T}
 */
export function withBuildLock(root, what, fn) {
  if (process.env[HELD]) return fn();
  const lock = join(root, 'node_modules', '.cache', 'taskwire-build.lock');
  mkdirSync(join(lock, '..'), { recursive: true });
  let waiting = false;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = holderOf(lock);
    // No holder file yet: its holder is writing it, unless it died first (then the directory is old).
    const gone = holder ? !alive(holder.pid) : Date.now() - statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 10_000;
    if (gone) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!waiting && holder) {
      process.stderr.write(`Waiting for another build of the packages to finish (${holder.what}, pid ${holder.pid}; lock ${lock})…\n`);
      waiting = true;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  writeFileSync(join(lock, 'holder.json'), JSON.stringify({ pid: process.pid, what }));
  process.env[HELD] = String(process.pid);
  const release = () => rmSync(lock, { recursive: true, force: true });
  process.once('exit', release); // fn may end the process (process.exit)
  try {
    return fn();
  } finally {
    delete process.env[HELD];
    process.off('exit', release);
    release();
  }
}
