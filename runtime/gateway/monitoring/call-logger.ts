/**
 * One pino JSON line per finished call, holding exactly the configured
 * fields: pino's own `level`, `time`, `pid`, `hostname` and `msg` keys are
 * switched off so a line is `{"timestamp":…,"protocol":…}` and nothing else.
 * Successful calls log at `info`, failed ones at `warn`.
 *
 * With pino's level, base and time chunks all off, pino writes `{` followed
 * by `,"key":…` for each property, i.e. `{,"a":1}`. Its time hook is the one
 * place that writes right after `{` without a comma, so the line's first field
 * goes out through it (set just before the synchronous log call).
 */
import pino, { type Logger } from 'pino';
import type { RequestContext } from '../../core/request-context';
import type { CallRecord } from './call-record';
import type { LogField, NormalizedMonitoringConfig } from './monitoring-config';

type LogLine = Record<string, string | number>;

export class CallLogger {
  readonly #logger: Logger;
  readonly #fields: readonly LogField[];
  #head = '';

  constructor(config: NormalizedMonitoringConfig['logging']) {
    const options = { level: config.level, base: null, timestamp: () => this.#head, formatters: { level: () => ({}) } };
    this.#logger = config.destination === undefined ? pino(options) : pino(options, config.destination);
    this.#fields = config.fields;
  }

  log(record: CallRecord, context: RequestContext, finishedAt: number): void {
    const level = record.failed ? 'warn' : 'info';
    if (!this.#logger.isLevelEnabled(level)) return;
    const line: LogLine = {};
    for (const field of this.#fields) {
      switch (field) {
        case 'timestamp': line.timestamp = new Date(finishedAt).toISOString(); break;
        case 'protocol': line.protocol = record.protocol; break;
        case 'service': line.service = record.service; break;
        case 'method': line.method = record.method; break;
        case 'client_id': line.client_id = context.client.id; break;
        case 'duration': line.duration = Math.round(record.durationMs * 1000) / 1000; break;
        case 'status': line.status = record.status; break;
        case 'trace_id': line.trace_id = context.tracing.traceId; break;
        case 'error': if (record.failed) line.error = record.error instanceof Error ? record.error.message : String(record.error); break;
      }
    }
    let first: string | undefined;
    for (first in line) break;
    if (first === undefined) {
      this.#head = '';
    } else {
      this.#head = `${JSON.stringify(first)}:${JSON.stringify(line[first])}`;
      delete line[first];
    }
    this.#logger[level](line);
  }

  /** Writes out anything pino still buffers. */
  flush(): Promise<void> {
    return new Promise((resolve) => this.#logger.flush(() => resolve()));
  }
}
