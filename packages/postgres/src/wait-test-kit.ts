/**
 * Resolves what `check` returns once it is defined, checking again after
 * each short pause: waits for a condition in the database (which sends no
 * event), never for a length of time.
 */
export async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
