/**
 * `--watch`: re-runs generation whenever a proto under the inputs changes,
 * debounced so that an editor's burst of writes triggers one run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Stops watching. */
export type StopWatching = () => void;

/**
 * Calls `run` after `.proto` changes under `paths` (files or directories).
 * @param debounceMs quiet time after the last change before `run` fires
 */
export function watchProtos(paths: readonly string[], run: () => void, debounceMs = 150): StopWatching {
  let timer: NodeJS.Timeout | undefined;
  const trigger = (file: string | null): void => {
    if (file !== null && !file.endsWith('.proto')) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      run();
    }, debounceMs);
  };
  const watchers: fs.FSWatcher[] = [];
  for (const p of paths) {
    const isDir = fs.statSync(p).isDirectory();
    const target = isDir ? p : path.dirname(p);
    const base = path.basename(p);
    watchers.push(
      fs.watch(target, { recursive: isDir }, (_event, file) => {
        if (!isDir && file !== null && file !== base) return;
        trigger(file === null ? null : String(file));
      }),
    );
  }
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
}
