/**
 * The gateway's Prometheus metrics through prom-client, named by
 * Prometheus's conventions: base units (seconds, bytes), `_total` on every
 * counter, histograms for durations and sizes, rates left to PromQL's
 * `rate()`, one metric per meaning, and label values drawn from bounded sets
 * (registered services and methods, status codes, at most 100 user agents).
 * Each gateway owns a private Registry, so two gateways in one process (or a
 * gateway and the application's own metrics) never collide in the global one;
 * process metrics come from one shared registry (process-metrics.ts).
 * prom-client hashes the label set on every increment, so the per-call path
 * keeps plain counts per label tuple and the counters copy them in when
 * scraped (their `collect` hook); only the duration histogram is fed per call.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayEvent } from '../extension-points';
import type { CallRecord } from './call-record';
import { OTHER_METHOD } from './method-names';
import type { MetricsSnapshot } from './metrics-snapshot';
import { PROTOCOLS } from './metrics-snapshot';
import type { NormalizedMonitoringConfig } from './monitoring-config';
import { processMetricsJSON, processMetricsRegistry } from './process-metrics';

const PREFIX = 'fw_gateway_';
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SIZE_BUCKETS = [64, 256, 1024, 4096, 16384, 65536];
const CALL_LABELS = ['protocol', 'service', 'method', 'status'] as const;

type CallLabel = (typeof CALL_LABELS)[number];

/** Counts of one (protocol, service, method, status) tuple, plus its bound histogram child. */
class CallTuple {
  readonly labels: Record<CallLabel, string>;
  count = 0;
  readonly duration: { observe(v: number): void } | undefined;

  constructor(labels: Record<CallLabel, string>, duration: Histogram<CallLabel> | undefined) {
    this.labels = labels;
    this.duration = duration?.labels(labels);
  }
}

export class PrometheusMetrics {
  readonly registry = new Registry();
  readonly #withProcess: boolean;
  readonly #duration: Histogram<CallLabel> | undefined;
  readonly #tuples = new Map<string, CallTuple>();
  readonly #messages: Counter<'protocol' | 'direction'> | undefined;
  readonly #bytes: Counter<'protocol' | 'direction'> | undefined;
  readonly #wsConnDuration: Histogram | undefined;
  readonly #grpcStreams: Counter | undefined;
  readonly #udpSize: Histogram<'direction'> | undefined;
  readonly #tcpBuffer: Histogram | undefined;
  readonly #discovery: Counter<'service' | 'decision'>;
  readonly #slowCuts: Counter<'protocol'>;

  constructor(config: NormalizedMonitoringConfig, snapshot: MetricsSnapshot) {
    const registers = [this.registry];
    this.#withProcess = config.processMetrics;
    // Made now, not at the first scrape: prom-client counts CPU time from when its collectors start.
    if (this.#withProcess) processMetricsRegistry();
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
    // Failed calls are requests_total{status!="OK"}; error ratios and call rates are PromQL over it.
    new Counter({
      name: `${PREFIX}requests_total`,
      help: 'Finished gateway calls by protocol, service, method and status (OK or the failure code)',
      labelNames: CALL_LABELS,
      registers,
      collect() {
        this.reset();
        for (const t of tuples.values()) if (t.count > 0) this.inc(t.labels, t.count);
      },
    });
    // One histogram for every protocol's call durations; gRPC's rpc latency is its protocol="grpc" series.
    if (c.has('request_duration') || pm.has('grpc.rpc_latency')) {
      this.#duration = new Histogram({ name: `${PREFIX}request_duration_seconds`, help: 'Gateway call duration in seconds', labelNames: CALL_LABELS, buckets: LATENCY_BUCKETS, registers });
    }
    if (c.has('active_connections') || pm.has('tcp.connection_pool')) {
      new Gauge({
        name: `${PREFIX}active_connections`,
        help: 'Client connections open now, per protocol',
        labelNames: ['protocol'],
        registers,
        collect() {
          for (const p of PROTOCOLS) this.set({ protocol: p }, snapshot.connections(p).active);
        },
      });
    }
    if (pm.has('tcp.connection_pool')) {
      new Counter({
        name: `${PREFIX}connections_opened_total`,
        help: 'Client connections opened since start, per protocol',
        labelNames: ['protocol'],
        registers,
        collect() {
          this.reset();
          for (const p of PROTOCOLS) this.inc({ protocol: p }, snapshot.connections(p).opened);
        },
      });
      new Counter({
        name: `${PREFIX}connections_closed_total`,
        help: 'Client connections closed since start, per protocol',
        labelNames: ['protocol'],
        registers,
        collect() {
          this.reset();
          for (const p of PROTOCOLS) this.inc({ protocol: p }, snapshot.connections(p).closed);
        },
      });
    }
    // Message counts serve throughput, WebSocket message frequency and UDP packets in/out alike.
    if (c.has('throughput') || pm.has('websocket.message_frequency') || pm.has('udp.packet_loss')) {
      this.#messages = new Counter({ name: `${PREFIX}messages_total`, help: 'Messages in and out, per protocol', labelNames: ['protocol', 'direction'], registers });
      this.#bytes = new Counter({ name: `${PREFIX}bytes_total`, help: 'Message bytes in and out, per protocol', labelNames: ['protocol', 'direction'], registers });
    }
    if (pm.has('http.status_codes')) {
      new Counter({
        name: `${PREFIX}http_responses_total`,
        help: 'HTTP calls by response status code',
        labelNames: ['status_code'],
        registers,
        collect() {
          this.reset();
          for (const [code, n] of snapshot.httpCounts().statusCodes) this.inc({ status_code: code }, n);
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
          for (const [ua, n] of snapshot.httpCounts().userAgents) this.inc({ user_agent: ua }, n);
        },
      });
    }
    if (pm.has('websocket.connection_duration')) {
      this.#wsConnDuration = new Histogram({ name: `${PREFIX}websocket_connection_duration_seconds`, help: 'WebSocket connection lifetimes in seconds', buckets: [1, 10, 60, 300, 1800, 3600], registers });
    }
    if (pm.has('grpc.stream_count')) {
      this.#grpcStreams = new Counter({ name: `${PREFIX}grpc_streams_total`, help: 'Streaming gRPC calls started', registers });
      new Gauge({
        name: `${PREFIX}grpc_streams_active`,
        help: 'Streaming gRPC calls in progress',
        registers,
        collect() {
          this.set(snapshot.activeStreams('grpc'));
        },
      });
    }
    if (pm.has('udp.packet_loss')) {
      // Received minus answered can dip while replies are on their way; the counter keeps its highest value so it never goes down.
      let lost = 0;
      new Counter({
        name: `${PREFIX}udp_packets_lost_total`,
        help: 'UDP datagrams received that got no reply (dropped as malformed or over the rate limit, or their reply failed)',
        registers,
        collect() {
          lost = Math.max(lost, snapshot.udpUnanswered());
          this.reset();
          this.inc(lost);
        },
      });
    }
    if (pm.has('udp.packet_size')) {
      this.#udpSize = new Histogram({ name: `${PREFIX}udp_packet_size_bytes`, help: 'UDP datagram sizes in bytes', labelNames: ['direction'], buckets: SIZE_BUCKETS, registers });
    }
    if (pm.has('tcp.buffer_utilization')) {
      this.#tcpBuffer = new Histogram({ name: `${PREFIX}tcp_buffer_utilization_ratio`, help: 'TCP write buffer fill (buffered / limit)', buckets: [0.1, 0.25, 0.5, 0.75, 0.9, 1], registers });
    }
  }

  streamStarted(protocol: string): void {
    if (protocol === 'grpc') this.#grpcStreams?.inc();
  }

  recordCall(r: CallRecord): void {
    // A method not served here counts under `_OTHER`: names a client makes up never become label values.
    const service = r.served ? r.service : OTHER_METHOD;
    const method = r.served ? r.method : OTHER_METHOD;
    const key = `${r.protocol}\u0000${service}\u0000${method}\u0000${r.status}`;
    let tuple = this.#tuples.get(key);
    if (tuple === undefined) {
      tuple = new CallTuple({ protocol: r.protocol, service, method, status: r.status }, this.#duration);
      this.#tuples.set(key, tuple);
    }
    tuple.count++;
    tuple.duration?.observe(r.durationMs / 1000);
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

  /** Prometheus text exposition of the gateway's metrics, then the process's (unless `metrics.processMetrics` is false). */
  async text(): Promise<string> {
    const own = await this.registry.metrics();
    if (!this.#withProcess) return own;
    return own + (await processMetricsRegistry().metrics());
  }

  /** Every metric as prom-client's JSON, for aggregating across workers (AggregatorRegistry). */
  json(): Promise<unknown[]> {
    return this.registry.getMetricsAsJSON();
  }

  /** The process's metrics as prom-client's JSON (none with `metrics.processMetrics: false`), for the same aggregation. */
  async processJSON(): Promise<unknown[]> {
    return this.#withProcess ? processMetricsJSON() : [];
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
