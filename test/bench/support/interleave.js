'use strict';
/**
 * Interleaved measurement, shared by bench:http and bench:gateway.
 *
 * On a small shared VM the speed of the whole machine drifts by ±10–20% over
 * minutes and dips for seconds at a time, more than the margins the benches
 * judge. So the servers being compared are all started at once and given the
 * load in turn, in short slices (a second by default), the order reversing on
 * every pass; a ratio is taken between neighbouring slices, where both sides
 * saw the same machine, and the median over passes is reported. An idle
 * server waiting for its turn costs nothing.
 *
 * Waiting is not free for what it leaves behind, though: a Node process idle
 * for the ~20 s it waits through the other servers' turns runs V8's memory
 * reducer, whose full collections flush the bytecode and optimised code of
 * its hot path (visible with --trace-opt: the whole request path is compiled
 * again in the next slice). A slice taken straight after such a wait measures
 * re-compilation on a core the concurrent compiler shares with the main
 * thread, and more so the more JavaScript a framework runs per request. So
 * with `rewarmMs` each subject is first given that much load, not counted,
 * right before its measured slice: every slice then measures a warm server,
 * as a server under steady traffic is.
 */

/**
 * @template {{ rps: number }} S
 * @param {{ name: string, measure: (ms: number) => Promise<S> }[]} subjects
 * @param {{ passes: number, sliceMs: number, rewarmMs?: number, onPass?: (pass: number, samples: Map<string, S[]>) => void }} options
 * @returns {Promise<Map<string, S[]>>} per subject, one sample per pass
 */
async function interleave(subjects, { passes, sliceMs, rewarmMs = 0, onPass }) {
  const samples = new Map(subjects.map((s) => [s.name, []]));
  for (let pass = 0; pass < passes; pass++) {
    const order = pass % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) {
      if (rewarmMs > 0) await subject.measure(rewarmMs);
      samples.get(subject.name)[pass] = await subject.measure(sliceMs);
    }
    onPass?.(pass, samples);
  }
  return samples;
}

function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median over passes of `key` of subject a ÷ `key` of subject b within the same pass. */
function pairedRatio(samples, a, b, key = 'rps') {
  const as = samples.get(a) ?? [];
  const bs = samples.get(b) ?? [];
  return median(as.map((x, i) => (bs[i] === undefined ? NaN : x[key] / bs[i][key])));
}

/** Median over passes of one subject's `key`. */
function medianOf(samples, name, key = 'rps') {
  return median((samples.get(name) ?? []).map((x) => x[key]));
}

module.exports = { interleave, median, pairedRatio, medianOf };
