/** Waiting for a child process to exit in test teardown, without leaving a timer behind. */
import type { ChildProcess } from 'node:child_process';

/** Resolves true once `child` has exited, false after `ms` if it has not; the timer never outlives the wait. */
export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}
