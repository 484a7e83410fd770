'use strict';
/**
 * Ends a benchmark server process and resolves once it has exited, so the
 * next servers start on a core nobody is still dying on. Its own 'exit'
 * listeners (start-up failure handlers) are dropped first.
 */
function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

module.exports = { stopChild };
