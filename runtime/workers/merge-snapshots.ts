/**
 * `getMetrics()` across workers: the snapshots of every worker added up,
 * member by member, whatever keys they hold. Counts and totals add; `min*`
 * keeps the least and `max*` the greatest; means (`avg*`) and ratios
 * (`error_rate`, `ratio`) are weighted by the count beside them (`count`,
 * `packets_in`, or the protocol's `requests_total`).
 */

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The weight of a mean or ratio member `key` of `node` (under `path`) in `root`. */
function weightOf(root: Record<string, Json>, node: Record<string, Json>, path: readonly string[], key: string): number | undefined {
  if (typeof node.count === 'number') return node.count;
  if (key === 'ratio' && typeof node.packets_in === 'number') return node.packets_in;
  // Top-level per-protocol maps (avg_response_time.http, error_rate.http): weighted by requests_total.http.
  if (path.length === 1 && isRecord(root.requests_total)) {
    const w = root.requests_total[key];
    return typeof w === 'number' ? w : undefined;
  }
  return undefined;
}

const MEAN = /^(avg|mean)/;

function mergeInto(roots: readonly Record<string, Json>[], nodes: readonly Record<string, Json>[], path: readonly string[]): Record<string, Json> {
  const out: Record<string, Json> = {};
  const keys = new Set(nodes.flatMap((node) => Object.keys(node)));
  const meanMap = path.length === 1 && (MEAN.test(path[0]!) || path[0] === 'error_rate');
  for (const key of keys) {
    const present = nodes.map((node, i) => [node[key], node, roots[i]!] as const).filter(([value]) => value !== undefined);
    const values = present.map(([value]) => value);
    if (values.every(isRecord)) {
      out[key] = mergeInto(present.map(([, , root]) => root), values as Record<string, Json>[], [...path, key]);
      continue;
    }
    if (!values.every((value) => typeof value === 'number')) {
      out[key] = values[0];
      continue;
    }
    const numbers = values as number[];
    if (key.startsWith('min')) out[key] = Math.min(...numbers);
    else if (key.startsWith('max')) out[key] = Math.max(...numbers);
    else if (meanMap || MEAN.test(key) || key === 'ratio') {
      const weights = present.map(([, node, root]) => weightOf(root, node, path, key) ?? 1);
      const total = weights.reduce((a, b) => a + b, 0);
      out[key] = total === 0 ? 0 : numbers.reduce((sum, value, i) => sum + value * weights[i]!, 0) / total;
    } else out[key] = numbers.reduce((a, b) => a + b, 0);
  }
  return out;
}

/** Adds up `snapshots` (each a `getMetrics()` result); the first's shape wins where they disagree. */
export function mergeSnapshots<T>(snapshots: readonly T[]): T {
  const records = snapshots.filter(isRecord) as Record<string, Json>[];
  if (records.length <= 1) return snapshots[0] as T;
  return mergeInto(records, records, []) as T;
}
