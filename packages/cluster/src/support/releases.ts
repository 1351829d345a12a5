/**
 * The earlier releases the mixed-release tests run beside this one (commits
 * of this repository; see previous-release.ts). Move {@link PREVIOUS_RELEASE}
 * to the commit of each new release once it is cut.
 */

/** The previous release: the one that must run side by side with this one, in both directions (RELEASING.md). */
export const PREVIOUS_RELEASE = 'd5723a7';

/**
 * The last commit before snapshot logs (migration 4): its store reads and
 * writes only the task JSON and sweeps events by age alone, the defences of
 * migration 5 are tried against it.
 */
export const BEFORE_SNAPSHOT_LOGS = '9fc2636';
