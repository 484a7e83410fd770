/**
 * One unary-call driver per protocol with the same shape, so each shared case
 * runs over HTTP, WebSocket, gRPC, UDP and TCP alike (the transport suite).
 */
import * as grpc from '@grpc/grpc-js';
import { encodeFrame, FrameType } from 'fw';
import { grpcJsonClient, grpcUnary, HOST, TcpFrameClient, udpCall, WsClient } from './clients';

export type Outcome =
  | { ok: true; data: unknown; traceId: string | undefined }
  | { ok: false; code: string; message: string; details: unknown; grpcStatus?: number; httpStatus?: number; traceId: string | undefined };

export interface CallOptions {
  token?: string;
  apiKey?: string;
  traceId?: string;
  /** W3C trace context: a header (HTTP), metadata (gRPC) or the envelope's `traceparent` field. */
  traceparent?: string;
}

export interface Driver {
  readonly protocol: 'http' | 'websocket' | 'grpc' | 'udp' | 'tcp';
  call(service: string, method: string, data: unknown, options?: CallOptions): Promise<Outcome>;
  close(): void;
}

let seq = 0;
const nextId = (): string => `c${++seq}`;

function envelopeAuth(o: CallOptions): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (o.token !== undefined || o.apiKey !== undefined) extra.auth = { token: o.token, apiKey: o.apiKey };
  if (o.traceId !== undefined) extra.traceId = o.traceId;
  if (o.traceparent !== undefined) extra.traceparent = o.traceparent;
  return extra;
}

export function httpDriver(port: number, basePath = '/api'): Driver {
  return {
    protocol: 'http',
    async call(service, method, data, o = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
      if (o.apiKey !== undefined) headers['x-api-key'] = o.apiKey;
      if (o.traceId !== undefined) headers['x-trace-id'] = o.traceId;
      if (o.traceparent !== undefined) headers.traceparent = o.traceparent;
      const res = await fetch(`http://${HOST}:${port}${basePath}/${service}/${method}`, { method: 'POST', headers, body: JSON.stringify(data), signal: AbortSignal.timeout(5000) });
      const body = (await res.json()) as Record<string, unknown>;
      const traceId = res.headers.get('x-trace-id') ?? undefined;
      if (res.ok) return { ok: true, data: body.data, traceId };
      return { ok: false, code: body.error as string, message: body.message as string, details: body.details, httpStatus: res.status, traceId };
    },
    close: () => undefined,
  };
}

export async function wsDriver(port: number, path = '/ws'): Promise<Driver> {
  const client = await WsClient.connect(`ws://${HOST}:${port}${path}`);
  return {
    protocol: 'websocket',
    async call(service, method, data, o = {}) {
      const replies = await client.call(nextId(), service, method, data, envelopeAuth(o));
      const last = replies[replies.length - 1] as Record<string, unknown>;
      if (last.type === 'response') return { ok: true, data: last.data, traceId: last.traceId as string };
      const e = last.error as Record<string, unknown>;
      return { ok: false, code: e.code as string, message: e.message as string, details: e.details, traceId: last.traceId as string };
    },
    close: () => client.close(),
  };
}

export function grpcDriver(port: number, service: string, methods: string[]): Driver {
  const client = grpcJsonClient(port, service, Object.fromEntries(methods.map((m) => [m, 'none' as const])));
  return {
    protocol: 'grpc',
    async call(svc, method, data, o = {}) {
      const md = new grpc.Metadata();
      if (o.token !== undefined) md.set('authorization', `Bearer ${o.token}`);
      if (o.apiKey !== undefined) md.set('x-api-key', o.apiKey);
      if (o.traceId !== undefined) md.set('x-trace-id', o.traceId);
      if (o.traceparent !== undefined) md.set('traceparent', o.traceparent);
      const c = svc === service ? client : grpcJsonClient(port, svc, { [method]: 'none' });
      try {
        const { value, headers } = await grpcUnary(c, method, data, md);
        return { ok: true, data: value, traceId: headers.get('x-trace-id')[0] as string | undefined };
      } catch (e) {
        const err = e as grpc.ServiceError;
        const code = (err.metadata?.get('x-error-code')[0] as string | undefined) ?? grpc.status[err.code];
        const detailsRaw = err.metadata?.get('x-error-details')[0] as string | undefined;
        return { ok: false, code, message: err.details, details: detailsRaw === undefined ? undefined : JSON.parse(detailsRaw), grpcStatus: err.code, traceId: undefined };
      } finally {
        if (c !== client) c.close();
      }
    },
    close: () => client.close(),
  };
}

export function udpDriver(port: number): Driver {
  return {
    protocol: 'udp',
    async call(service, method, data, o = {}) {
      const id = nextId();
      const reply = await udpCall(port, encodeFrame(FrameType.Request, { id, service, method, data, ...envelopeAuth(o) }));
      if (reply.type === FrameType.Response) return { ok: true, data: reply.payload.data, traceId: reply.payload.traceId as string };
      const e = reply.payload.error as Record<string, unknown>;
      return { ok: false, code: e.code as string, message: e.message as string, details: e.details, traceId: reply.payload.traceId as string };
    },
    close: () => undefined,
  };
}

export async function tcpDriver(port: number): Promise<Driver> {
  const client = await TcpFrameClient.connect(port);
  return {
    protocol: 'tcp',
    async call(service, method, data, o = {}) {
      const replies = await client.call(nextId(), service, method, data, envelopeAuth(o));
      const last = replies[replies.length - 1];
      if (last === undefined) throw new Error('no reply');
      if (last.type === FrameType.Response) return { ok: true, data: last.payload.data, traceId: last.payload.traceId as string };
      const e = last.payload.error as Record<string, unknown>;
      return { ok: false, code: e.code as string, message: e.message as string, details: e.details, traceId: last.payload.traceId as string };
    },
    close: () => client.close(),
  };
}

/** A driver for every protocol against one gateway port. */
export async function allDrivers(port: number, grpcService: string, grpcMethods: string[]): Promise<Driver[]> {
  return [httpDriver(port), await wsDriver(port), grpcDriver(port, grpcService, grpcMethods), udpDriver(port), await tcpDriver(port)];
}
