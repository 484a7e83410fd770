/**
 * The same figures as `getMetrics()`, as Prometheus text through prom-client.
 * Each gateway owns a private Registry, so two gateways in one process (or a
 * gateway and the application's own metrics) never collide in the global one.
 * prom-client hashes the label set on every increment, so the per-call path
 * keeps plain counts per label tuple and the counters copy them in when
 * scraped (their `collect` hook); only the duration histogram is fed per call.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayEvent } from '../extension-points';
import type { CallRecord } from './call-record';
import type { MetricsSnapshot } from './metrics-snapshot';
import { PROTOCOLS } from './metrics-snapshot';
import type { NormalizedMonitoringConfig } from './monitoring-config';

const PREFIX = 'fw_gateway_';
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [64, 256, 1024, 4096, 16384, 65536];
const CALL_LABELS = ['protocol', 'service', 'method', 'status'] as const;

type CallLabel = (typeof CALL_LABELS)[number];

/** Counts of one (protocol, service, method, status) tuple, plus its bound histogram child. */
class CallTuple {
  readonly labels: Record<CallLabel, string>;
  count = 0;
  errors = 0;
  readonly duration: { observe(v: number): void } | undefined;

  constructor(labels: Record<CallLabel, string>, duration: Histogram<CallLabel> | undefined) {
    this.labels = labels;
    this.duration = duration?.labels(labels);
  }
}

export class PrometheusMetrics {
  readonly registry = new Registry();
  readonly #duration: Histogram<CallLabel> | undefined;
  readonly #tuples = new Map<string, CallTuple>();
  readonly #messages: Counter<'protocol' | 'direction'> | undefined;
  readonly #bytes: Counter<'protocol' | 'direction'> | undefined;
  readonly #wsConnDuration: Histogram | undefined;
  readonly #grpcStreams: Counter | undefined;
  readonly #grpcLatency: Histogram<'service' | 'method'> | undefined;
  readonly #udpSize: Histogram<'direction'> | undefined;
  readonly #tcpBuffer: Histogram | undefined;
  readonly #discovery: Counter<'service' | 'decision'>;
  readonly #slowCuts: Counter<'protocol'>;

  constructor(config: NormalizedMonitoringConfig, snapshot: MetricsSnapshot) {
    const registers = [this.registry];
    this.#discovery = new Counter({
      name: `${PREFIX}discovery_events_total`,
      help: 'Decisions of service discovery and forwarding: retry, hedge, bulkhead_full, deadline_exceeded, no_instance, circuit_open/half_open/closed, instance_unresponsive, backend_lost/restored',
      labelNames: ['service', 'decision'],
      registers,
    });
    this.#slowCuts = new Counter({
      name: `${PREFIX}slow_consumers_cut_total`,
      help: 'Connections cut because the gateway-wide cap on output buffered for clients that do not read was passed',
      labelNames: ['protocol'],
      registers,
    });
    const c = config.collectors;
    const pm = config.protocolMetrics;
    const tuples = this.#tuples;
    new Counter({
      name: `${PREFIX}requests_total`,
      help: 'Finished gateway calls',
      labelNames: CALL_LABELS,
      registers,
      collect() {
        this.reset();
        for (const t of tuples.values()) if (t.count > 0) this.inc(t.labels, t.count);
      },
    });
    new Gauge({
      name: `${PREFIX}avg_response_time_ms`,
      help: 'Mean call duration per protocol in milliseconds (getMetrics().avg_response_time)',
      labelNames: ['protocol'],
      registers,
      collect() {
        const avg = snapshot.snapshot().avg_response_time;
        for (const p of PROTOCOLS) this.set({ protocol: p }, avg[p]);
      },
    });
    if (c.has('request_duration')) {
      this.#duration = new Histogram({ name: `${PREFIX}request_duration_seconds`, help: 'Gateway call duration', labelNames: CALL_LABELS, buckets: LATENCY_BUCKETS, registers });
    }
    if (c.has('error_rate')) {
      new Counter({
        name: `${PREFIX}errors_total`,
        help: 'Failed gateway calls',
        labelNames: CALL_LABELS,
        registers,
        collect() {
          this.reset();
          for (const t of tuples.values()) if (t.errors > 0) this.inc(t.labels, t.errors);
        },
      });
      new Gauge({
        name: `${PREFIX}error_rate`,
        help: 'Failed calls / finished calls per protocol',
        labelNames: ['protocol'],
        registers,
        collect() {
          const rate = snapshot.snapshot().error_rate;
          if (rate !== undefined) for (const p of PROTOCOLS) this.set({ protocol: p }, rate[p]);
        },
      });
    }
    if (c.has('active_connections')) {
      new Gauge({
        name: `${PREFIX}active_connections`,
        help: 'Open client connections per protocol',
        labelNames: ['protocol'],
        registers,
        collect() {
          const active = snapshot.snapshot().active_connections;
          if (active !== undefined) for (const p of PROTOCOLS) this.set({ protocol: p }, active[p]);
        },
      });
    }
    if (c.has('throughput')) {
      this.#messages = new Counter({ name: `${PREFIX}messages_total`, help: 'Messages in and out', labelNames: ['protocol', 'direction'], registers });
      this.#bytes = new Counter({ name: `${PREFIX}bytes_total`, help: 'Bytes in and out', labelNames: ['protocol', 'direction'], registers });
      new Gauge({
        name: `${PREFIX}throughput_requests_per_second`,
        help: 'Calls finished per second over the last minute',
        labelNames: ['protocol'],
        registers,
        collect() {
          const t = snapshot.snapshot().throughput;
          if (t !== undefined) for (const p of PROTOCOLS) this.set({ protocol: p }, t[p]);
        },
      });
    }
    if (pm.has('http.status_codes')) {
      new Counter({
        name: `${PREFIX}http_responses_total`,
        help: 'HTTP calls by status code',
        labelNames: ['status_code'],
        registers,
        collect() {
          this.reset();
          for (const [code, n] of Object.entries(snapshot.snapshot().protocol_metrics?.http?.status_codes ?? {})) this.inc({ status_code: code }, n);
        },
      });
    }
    if (pm.has('http.user_agents')) {
      new Counter({
        name: `${PREFIX}http_user_agent_requests_total`,
        help: 'HTTP calls by user agent (first 100 distinct, then "other")',
        labelNames: ['user_agent'],
        registers,
        collect() {
          this.reset();
          for (const [ua, n] of Object.entries(snapshot.snapshot().protocol_metrics?.http?.user_agents ?? {})) this.inc({ user_agent: ua }, n);
        },
      });
    }
    if (pm.has('websocket.connection_duration')) {
      this.#wsConnDuration = new Histogram({ name: `${PREFIX}websocket_connection_duration_seconds`, help: 'WebSocket connection lifetimes', buckets: [1, 10, 60, 300, 1800, 3600], registers });
    }
    if (pm.has('websocket.message_frequency')) {
      new Gauge({
        name: `${PREFIX}websocket_messages_per_second`,
        help: 'WebSocket messages per second over the last minute',
        registers,
        collect() {
          this.set(snapshot.snapshot().protocol_metrics?.websocket?.message_frequency?.per_second ?? 0);
        },
      });
    }
    if (pm.has('grpc.stream_count')) {
      this.#grpcStreams = new Counter({ name: `${PREFIX}grpc_streams_total`, help: 'Streaming gRPC calls started', registers });
      new Gauge({
        name: `${PREFIX}grpc_streams_active`,
        help: 'Streaming gRPC calls in progress',
        registers,
        collect() {
          this.set(snapshot.snapshot().protocol_metrics?.grpc?.stream_count?.active ?? 0);
        },
      });
    }
    if (pm.has('grpc.rpc_latency')) {
      this.#grpcLatency = new Histogram({ name: `${PREFIX}grpc_rpc_latency_seconds`, help: 'gRPC call latency', labelNames: ['service', 'method'], buckets: LATENCY_BUCKETS, registers });
    }
    if (pm.has('udp.packet_loss')) {
      new Gauge({
        name: `${PREFIX}udp_packets_lost`,
        help: 'UDP datagrams received that got no reply',
        registers,
        collect() {
          this.set(snapshot.snapshot().protocol_metrics?.udp?.packet_loss?.lost ?? 0);
        },
      });
    }
    if (pm.has('udp.packet_size')) {
      this.#udpSize = new Histogram({ name: `${PREFIX}udp_packet_size_bytes`, help: 'UDP datagram sizes', labelNames: ['direction'], buckets: SIZE_BUCKETS, registers });
    }
    if (pm.has('tcp.connection_pool')) {
      new Gauge({
        name: `${PREFIX}tcp_connections`,
        help: 'TCP connections: active now, opened and closed since start',
        labelNames: ['state'],
        registers,
        collect() {
          const pool = snapshot.snapshot().protocol_metrics?.tcp?.connection_pool;
          this.set({ state: 'active' }, pool?.active ?? 0);
          this.set({ state: 'opened' }, pool?.opened ?? 0);
          this.set({ state: 'closed' }, pool?.closed ?? 0);
        },
      });
    }
    if (pm.has('tcp.buffer_utilization')) {
      this.#tcpBuffer = new Histogram({ name: `${PREFIX}tcp_buffer_utilization_ratio`, help: 'TCP write buffer fill (buffered / limit)', buckets: [0.1, 0.25, 0.5, 0.75, 0.9, 1], registers });
    }
  }

  streamStarted(protocol: string): void {
    if (protocol === 'grpc') this.#grpcStreams?.inc();
  }

  recordCall(r: CallRecord): void {
    const key = `${r.protocol}\u0000${r.service}\u0000${r.method}\u0000${r.status}`;
    let tuple = this.#tuples.get(key);
    if (tuple === undefined) {
      tuple = new CallTuple({ protocol: r.protocol, service: r.service, method: r.method, status: r.status }, this.#duration);
      this.#tuples.set(key, tuple);
    }
    tuple.count++;
    if (r.failed) tuple.errors++;
    tuple.duration?.observe(r.durationMs / 1000);
    if (r.protocol === 'grpc') this.#grpcLatency?.observe({ service: r.service, method: r.method }, r.durationMs / 1000);
  }

  recordEvent(event: GatewayEvent): void {
    switch (event.type) {
      case 'connection-close':
        if (event.protocol === 'websocket') this.#wsConnDuration?.observe(event.durationMs / 1000);
        break;
      case 'message':
        this.#messages?.inc({ protocol: event.protocol, direction: event.direction });
        this.#bytes?.inc({ protocol: event.protocol, direction: event.direction }, event.bytes);
        if (event.protocol === 'udp') this.#udpSize?.observe({ direction: event.direction }, event.bytes);
        break;
      case 'buffer':
        if (event.protocol === 'tcp' && event.limitBytes > 0) this.#tcpBuffer?.observe(event.bufferedBytes / event.limitBytes);
        break;
      case 'connection-open':
        break;
      case 'discovery':
        this.#discovery.inc({ service: event.service, decision: event.decision });
        break;
      case 'slow-consumer-cut':
        this.#slowCuts.inc({ protocol: event.protocol });
        break;
    }
  }

  /** Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Every metric as prom-client's JSON, for aggregating across workers (AggregatorRegistry). */
  json(): Promise<unknown[]> {
    return this.registry.getMetricsAsJSON();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
