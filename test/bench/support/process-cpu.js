'use strict';
/**
 * CPU time of a process from /proc/<pid>/stat (utime + stime, in clock ticks
 * of 1/100 s on Linux): the benches report a server's CPU per call with it,
 * which stays comparable when other processes compete for the cores.
 */
const fs = require('node:fs');

/** CPU seconds (user + system) process `pid` has used so far; undefined off Linux or once it is gone. */
function cpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields from its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

module.exports = { cpuSeconds };
