/**
 * One driver per transport for the validation table: each sends a Probe as
 * JSON text (or, for binary gRPC, as protobuf) to ProbeService.check and
 * reduces the answer to the same Verdict shape, so verdicts compare across
 * HTTP, WebSocket (json and msgpack), TCP, UDP, gRPC and gRPC+JSON.
 */
import * as grpc from '@grpc/grpc-js';
import { encode as msgpackEncode, decode as msgpackDecode } from '@msgpack/msgpack';
import { decodeBadRequestStatus, FrameType, type FieldViolation } from 'fw';
import { HOST, TcpFrameClient, udpCall, withTimeout, WsClient } from '../../gateway/support/clients';

/** A transport's answer, reduced. */
export type Verdict =
  | { ok: true; data: unknown }
  | { ok: false; code: string; violations: FieldViolation[]; status: number | undefined; message: string };

export interface ProbeDriver {
  readonly name: string;
  /** Sends `text` (JSON) as the request data; binary drivers receive the protobuf bytes instead. */
  send(text: string, bytes?: Uint8Array): Promise<Verdict>;
  close(): void;
}

/** Which method the drivers call: gateway service and method names, and the gRPC path. */
export interface ProbeTarget {
  service: string;
  method: string;
  grpcPath: string;
}

/** ProbeService.check, the default target. */
export const PROBE_CHECK: ProbeTarget = { service: 'ProbeService', method: 'check', grpcPath: '/probe.v1.ProbeService/Check' };

let seq = 0;

function envelopeText(id: string, target: ProbeTarget, dataText: string): string {
  return `{"id":${JSON.stringify(id)},"service":"${target.service}","method":"${target.method}","data":${dataText}}`;
}

function frame(type: number, text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(6);
  header[0] = 1;
  header[1] = type;
  header.writeUInt32BE(body.length, 2);
  return Buffer.concat([header, body]);
}

function fromErrorObject(e: Record<string, unknown> | undefined, status?: number): Verdict {
  return { ok: false, code: String(e?.code ?? e?.error ?? ''), violations: Array.isArray(e?.details) ? (e?.details as FieldViolation[]) : [], status, message: String(e?.message ?? '') };
}

export function httpDriver(port: number, target = PROBE_CHECK): ProbeDriver {
  return {
    name: 'http',
    async send(text) {
      const res = await fetch(`http://${HOST}:${port}/api/${target.service}/${target.method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text, signal: AbortSignal.timeout(15_000) });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.ok) return { ok: true, data: body.data };
      return fromErrorObject({ ...body, code: body.error }, res.status);
    },
    close: () => undefined,
  };
}

export async function wsDriver(port: number, format: 'json' | 'msgpack' = 'json', target = PROBE_CHECK): Promise<ProbeDriver> {
  const client = await WsClient.connect(`ws://${HOST}:${port}/ws`, format === 'json' ? {} : { protocol: 'fw.msgpack', decode: (d) => msgpackDecode(d) });
  return {
    name: format === 'json' ? 'websocket' : 'websocket-msgpack',
    async send(text) {
      const id = `w${++seq}`;
      const envelope = envelopeText(id, target, text);
      // msgpack carries the same envelope; JSON.parse keeps `__proto__` as an own key, so msgpack sends it too.
      client.send(format === 'json' ? envelope : Buffer.from(msgpackEncode(JSON.parse(envelope))));
      const mine = (m: unknown): boolean => (m as Record<string, unknown>).id === id || (m as Record<string, unknown>).id === undefined;
      await client.until((ms) => ms.some(mine), 15_000);
      // Calls on one driver are sequential: take this call's reply out, leave anything else.
      const index = client.messages.findIndex(mine);
      if (index === -1) throw new Error(`${format} WebSocket: no reply to ${id}`);
      const last = client.messages.splice(index, 1)[0] as Record<string, unknown>;
      if (last.type === 'response') return { ok: true, data: last.data };
      return fromErrorObject(last.error as Record<string, unknown>);
    },
    close: () => client.close(),
  };
}

export async function tcpDriver(port: number, target = PROBE_CHECK): Promise<ProbeDriver> {
  const client = await TcpFrameClient.connect(port);
  return {
    name: 'tcp',
    async send(text) {
      const id = `t${++seq}`;
      client.raw(frame(FrameType.Request, envelopeText(id, target, text)));
      const mine = (f: { type: number; payload: Record<string, unknown> }): boolean => f.payload.id === id || (f.type === FrameType.Error && f.payload.id === undefined);
      await client.until((fs) => fs.some(mine), 15_000);
      const index = client.frames.findIndex(mine);
      if (index === -1) throw new Error(`TCP: no reply to ${id}`);
      const last = client.frames.splice(index, 1)[0];
      if (last?.type === FrameType.Response) return { ok: true, data: last.payload.data };
      return fromErrorObject(last?.payload.error as Record<string, unknown>);
    },
    close: () => client.close(),
  };
}

export function udpDriver(port: number, target = PROBE_CHECK): ProbeDriver {
  return {
    name: 'udp',
    async send(text) {
      const id = `u${++seq}`;
      const datagram = frame(FrameType.Request, envelopeText(id, target, text));
      // A loaded machine may drop a datagram: one retry, as a UDP client would.
      const reply = await udpCall(port, datagram, 5000).catch(() => udpCall(port, datagram, 10_000));
      if (reply.type === FrameType.Response) return { ok: true, data: reply.payload.data };
      return fromErrorObject(reply.payload.error as Record<string, unknown>);
    },
    close: () => undefined,
  };
}

type RawClient = grpc.Client & { check(req: Buffer, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, v?: Buffer) => void): void };

function rawGrpcClient(port: number, path: string): RawClient {
  const identity = (b: Buffer): Buffer => b;
  const Ctor = grpc.makeGenericClientConstructor(
    { check: { path, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity } },
    'Probe',
  );
  return new Ctor(`${HOST}:${port}`, grpc.credentials.createInsecure()) as unknown as RawClient;
}

/** A gRPC failure reduced: the gateway's code trailer (or the status name) and the BadRequest violations. */
export function grpcVerdict(err: grpc.ServiceError): Verdict {
  const bin = err.metadata?.get('grpc-status-details-bin')[0];
  const violations = Buffer.isBuffer(bin) ? decodeBadRequestStatus(bin).violations : [];
  const code = (err.metadata?.get('x-error-code')[0] as string | undefined) ?? grpc.status[err.code];
  return { ok: false, code, violations, status: err.code, message: err.details };
}

/** Every JSON transport against `target` on one gateway. */
export async function jsonDriversFor(port: number, udpPort: number, target = PROBE_CHECK): Promise<ProbeDriver[]> {
  const asJson = (b: Buffer): unknown => JSON.parse(b.toString('utf8'));
  return [httpDriver(port, target), await wsDriver(port, 'json', target), await wsDriver(port, 'msgpack', target), await tcpDriver(port, target), udpDriver(udpPort, target), grpcDriver(port, 'json', asJson, target)];
}

/** gRPC to ProbeService/Check: binary protobuf, or JSON text with content-type application/grpc+json. */
export function grpcDriver(port: number, encoding: 'binary' | 'json', decodeReply: (bytes: Buffer) => unknown, target = PROBE_CHECK): ProbeDriver {
  const client = rawGrpcClient(port, target.grpcPath);
  const md = new grpc.Metadata();
  return {
    name: encoding === 'json' ? 'grpc+json' : 'grpc',
    send(text, bytes) {
      const payload = encoding === 'json' ? Buffer.from(text, 'utf8') : Buffer.from(bytes ?? new Uint8Array(0));
      return withTimeout(
        new Promise<Verdict>((resolve) => {
          const call = client.check(payload, md, { deadline: Date.now() + 15_000 }, (err, value) => {
            if (err !== null) resolve(grpcVerdict(err));
            else resolve({ ok: true, data: encoding === 'json' ? JSON.parse((value as Buffer).toString('utf8')) : decodeReply(value as Buffer) });
          });
          void call;
        }),
        16_000,
        'grpc check',
      );
    },
    close: () => client.close(),
  };
}
