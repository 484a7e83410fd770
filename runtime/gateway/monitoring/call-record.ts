/**
 * One finished call as the metrics, tracing and logging recorders see it.
 * A class so every record has the same shape (the per-call path stays
 * monomorphic); the interceptor fills one per call.
 */
import type { StreamingMode } from '../../rpc/descriptor';
import type { Protocol } from '../../core/request-context';

export class CallRecord {
  protocol: Protocol;
  service: string;
  method: string;
  streaming: StreamingMode;
  /** `OK` or the failure's code name (see call-status). */
  status: string;
  /** HTTP status the call is answered with (200 on success). */
  httpStatus: number;
  durationMs: number;
  failed: boolean;
  userAgent: string | undefined;
  error: unknown;
  /** False for a method not served here: its names stay out of metric labels. */
  served: boolean;

  constructor(protocol: Protocol, service: string, method: string, streaming: StreamingMode, userAgent: string | undefined, served = true) {
    this.protocol = protocol;
    this.service = service;
    this.method = method;
    this.streaming = streaming;
    this.status = 'OK';
    this.httpStatus = 200;
    this.durationMs = 0;
    this.failed = false;
    this.userAgent = userAgent;
    this.error = undefined;
    this.served = served;
  }
}
