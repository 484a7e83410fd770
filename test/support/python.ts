/** Runs Debian's python3 (the grpcio peer) with `args`; resolves with its stdout, rejects with its stderr. */
import { execFile } from 'node:child_process';
import { PYTHON } from './peers';

export function runPython(args: string[], timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${PYTHON} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
