/**
 * In-memory aggregates behind `gateway.getMetrics()` (spec 4.10): plain
 * numbers per protocol, readable synchronously. Prometheus text is produced
 * separately (prometheus-metrics.ts) from the same records.
 */
import type { Protocol } from '../../core/request-context';
import type { GatewayEvent } from '../extension-points';
import type { CallRecord } from './call-record';
import type { NormalizedMonitoringConfig } from './monitoring-config';
import { RateWindow } from './rate-window';

export const PROTOCOLS: readonly Protocol[] = ['http', 'websocket', 'grpc', 'udp', 'tcp'];

/** Distinct label values kept per map (user agents, status codes, methods); the rest count as `other`. */
const MAX_DISTINCT_KEYS = 100;

export interface DurationSummary {
  count: number;
  avg_ms: number;
  min_ms: number;
  max_ms: number;
  total_ms: number;
}

/** What `getMetrics()` returns. Optional keys appear when their collector / protocol metric is enabled. */
export interface GatewayMetrics {
  /** Finished calls per protocol. */
  requests_total: Record<Protocol, number>;
  /** Mean call duration per protocol, in milliseconds (0 before the first call). */
  avg_response_time: Record<Protocol, number>;
  request_duration?: Record<Protocol, DurationSummary>;
  /** Failed calls / finished calls, per protocol (0 when none finished). */
  error_rate?: Record<Protocol, number>;
  active_connections?: Record<Protocol, number>;
  /** Calls finished per second over the last minute, per protocol. */
  throughput?: Record<Protocol, number>;
  protocol_metrics?: ProtocolMetricsSnapshot;
}

export interface ProtocolMetricsSnapshot {
  http?: { status_codes?: Record<string, number>; user_agents?: Record<string, number> };
  websocket?: {
    connection_duration?: DurationSummary;
    message_frequency?: { messages_in: number; messages_out: number; per_second: number };
  };
  grpc?: { stream_count?: { active: number; total: number }; rpc_latency?: Record<string, DurationSummary> };
  udp?: {
    packet_loss?: { packets_in: number; packets_out: number; lost: number; ratio: number };
    packet_size?: { count: number; avg_bytes: number; max_bytes: number };
  };
  tcp?: {
    connection_pool?: { active: number; opened: number; closed: number };
    buffer_utilization?: { current: number; max: number };
  };
}

class DurationStats {
  count = 0;
  total = 0;
  min = Infinity;
  max = 0;

  add(ms: number): void {
    this.count++;
    this.total += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
  }

  summary(): DurationSummary {
    return {
      count: this.count,
      avg_ms: this.count === 0 ? 0 : this.total / this.count,
      min_ms: this.count === 0 ? 0 : this.min,
      max_ms: this.max,
      total_ms: this.total,
    };
  }
}

class ProtocolStats {
  readonly durations = new DurationStats();
  errors = 0;
  activeConnections = 0;
  openedConnections = 0;
  closedConnections = 0;
  readonly connectionDurations = new DurationStats();
  messagesIn = 0;
  messagesOut = 0;
  bytesIn = 0;
  bytesOut = 0;
  maxMessageBytes = 0;
  readonly calls = new RateWindow();
  readonly messages = new RateWindow();
  activeStreams = 0;
  totalStreams = 0;
  /** Latest buffered/limit ratio per open connection. */
  readonly buffers = new Map<string, number>();
  maxBufferRatio = 0;
}

function countInto(map: Map<string, number>, key: string): void {
  const existing = map.get(key);
  if (existing !== undefined) map.set(key, existing + 1);
  else if (map.size < MAX_DISTINCT_KEYS) map.set(key, 1);
  else map.set('other', (map.get('other') ?? 0) + 1);
}

function perProtocol<T>(make: (p: Protocol) => T): Record<Protocol, T> {
  return { http: make('http'), websocket: make('websocket'), grpc: make('grpc'), udp: make('udp'), tcp: make('tcp') };
}

export class MetricsSnapshot {
  readonly #config: NormalizedMonitoringConfig;
  readonly #stats: Record<Protocol, ProtocolStats> = perProtocol(() => new ProtocolStats());
  readonly #statusCodes = new Map<string, number>();
  readonly #userAgents = new Map<string, number>();
  readonly #rpcLatency = new Map<string, DurationStats>();

  constructor(config: NormalizedMonitoringConfig) {
    this.#config = config;
  }

  /** A streaming call (server, client or bidi) began on `protocol`. */
  streamStarted(protocol: Protocol): void {
    const s = this.#stats[protocol];
    s.activeStreams++;
    s.totalStreams++;
  }

  recordCall(record: CallRecord): void {
    const s = this.#stats[record.protocol];
    s.durations.add(record.durationMs);
    s.calls.add();
    if (record.failed) s.errors++;
    if (record.streaming !== 'none') s.activeStreams--;
    if (record.protocol === 'http') {
      countInto(this.#statusCodes, String(record.httpStatus));
      countInto(this.#userAgents, record.userAgent ?? 'unknown');
    } else if (record.protocol === 'grpc') {
      const key = `${record.service}/${record.method}`;
      let stats = this.#rpcLatency.get(key);
      if (stats === undefined && this.#rpcLatency.size < MAX_DISTINCT_KEYS) {
        stats = new DurationStats();
        this.#rpcLatency.set(key, stats);
      }
      stats?.add(record.durationMs);
    }
  }

  recordEvent(event: GatewayEvent): void {
    // Discovery decisions are Prometheus counters only (prometheus-metrics.ts).
    if (event.type === 'discovery') return;
    const s = this.#stats[event.protocol];
    switch (event.type) {
      case 'connection-open':
        s.activeConnections++;
        s.openedConnections++;
        break;
      case 'connection-close':
        s.activeConnections = Math.max(0, s.activeConnections - 1);
        s.closedConnections++;
        s.connectionDurations.add(event.durationMs);
        s.buffers.delete(event.connectionId);
        break;
      case 'message':
        if (event.direction === 'in') {
          s.messagesIn++;
          s.bytesIn += event.bytes;
        } else {
          s.messagesOut++;
          s.bytesOut += event.bytes;
        }
        if (event.bytes > s.maxMessageBytes) s.maxMessageBytes = event.bytes;
        s.messages.add();
        break;
      case 'buffer': {
        const ratio = event.limitBytes > 0 ? event.bufferedBytes / event.limitBytes : 0;
        s.buffers.set(event.connectionId, ratio);
        if (ratio > s.maxBufferRatio) s.maxBufferRatio = ratio;
        break;
      }
    }
  }

  /** Connections of `protocol`: open now, opened and closed since start (Prometheus reads these directly). */
  connections(protocol: Protocol): { active: number; opened: number; closed: number } {
    const s = this.#stats[protocol];
    return { active: s.activeConnections, opened: s.openedConnections, closed: s.closedConnections };
  }

  /** Datagrams received so far that got no reply (received minus sent, never below zero). */
  udpUnanswered(): number {
    const u = this.#stats.udp;
    return Math.max(0, u.messagesIn - u.messagesOut);
  }

  /** Streaming calls in progress on `protocol`. */
  activeStreams(protocol: Protocol): number {
    return this.#stats[protocol].activeStreams;
  }

  /** HTTP calls by status code, and by user agent (each capped at 100 distinct keys, then `other`). */
  httpCounts(): { statusCodes: ReadonlyMap<string, number>; userAgents: ReadonlyMap<string, number> } {
    return { statusCodes: this.#statusCodes, userAgents: this.#userAgents };
  }

  /** The `getMetrics()` object. */
  snapshot(): GatewayMetrics {
    const st = this.#stats;
    const c = this.#config.collectors;
    const result: GatewayMetrics = {
      requests_total: perProtocol((p) => st[p].durations.count),
      avg_response_time: perProtocol((p) => st[p].durations.summary().avg_ms),
    };
    if (c.has('request_duration')) result.request_duration = perProtocol((p) => st[p].durations.summary());
    if (c.has('error_rate')) result.error_rate = perProtocol((p) => (st[p].durations.count === 0 ? 0 : st[p].errors / st[p].durations.count));
    if (c.has('active_connections')) result.active_connections = perProtocol((p) => st[p].activeConnections);
    if (c.has('throughput')) result.throughput = perProtocol((p) => st[p].calls.perSecond());
    const pm = this.#protocolMetrics();
    if (pm !== undefined) result.protocol_metrics = pm;
    return result;
  }

  #protocolMetrics(): ProtocolMetricsSnapshot | undefined {
    const want = this.#config.protocolMetrics;
    if (want.size === 0) return undefined;
    const st = this.#stats;
    const out: ProtocolMetricsSnapshot = {};
    if (want.has('http.status_codes') || want.has('http.user_agents')) {
      out.http = {};
      if (want.has('http.status_codes')) out.http.status_codes = Object.fromEntries(this.#statusCodes);
      if (want.has('http.user_agents')) out.http.user_agents = Object.fromEntries(this.#userAgents);
    }
    if (want.has('websocket.connection_duration') || want.has('websocket.message_frequency')) {
      const ws = st.websocket;
      out.websocket = {};
      if (want.has('websocket.connection_duration')) out.websocket.connection_duration = ws.connectionDurations.summary();
      if (want.has('websocket.message_frequency')) {
        out.websocket.message_frequency = { messages_in: ws.messagesIn, messages_out: ws.messagesOut, per_second: ws.messages.perSecond() };
      }
    }
    if (want.has('grpc.stream_count') || want.has('grpc.rpc_latency')) {
      out.grpc = {};
      if (want.has('grpc.stream_count')) out.grpc.stream_count = { active: st.grpc.activeStreams, total: st.grpc.totalStreams };
      if (want.has('grpc.rpc_latency')) {
        out.grpc.rpc_latency = Object.fromEntries([...this.#rpcLatency].map(([k, v]) => [k, v.summary()]));
      }
    }
    if (want.has('udp.packet_loss') || want.has('udp.packet_size')) {
      const u = st.udp;
      out.udp = {};
      if (want.has('udp.packet_loss')) {
        // A datagram that got no reply (dropped as malformed, or its reply failed to send) counts as lost.
        const lost = Math.max(0, u.messagesIn - u.messagesOut);
        out.udp.packet_loss = { packets_in: u.messagesIn, packets_out: u.messagesOut, lost, ratio: u.messagesIn === 0 ? 0 : lost / u.messagesIn };
      }
      if (want.has('udp.packet_size')) {
        const count = u.messagesIn + u.messagesOut;
        out.udp.packet_size = { count, avg_bytes: count === 0 ? 0 : (u.bytesIn + u.bytesOut) / count, max_bytes: u.maxMessageBytes };
      }
    }
    if (want.has('tcp.connection_pool') || want.has('tcp.buffer_utilization')) {
      const t = st.tcp;
      out.tcp = {};
      if (want.has('tcp.connection_pool')) out.tcp.connection_pool = { active: t.activeConnections, opened: t.openedConnections, closed: t.closedConnections };
      if (want.has('tcp.buffer_utilization')) {
        let sum = 0;
        for (const r of t.buffers.values()) sum += r;
        out.tcp.buffer_utilization = { current: t.buffers.size === 0 ? 0 : sum / t.buffers.size, max: t.maxBufferRatio };
      }
    }
    return out;
  }
}
