/**
 * grpc's interop client cases (doc/interop-test-descriptions.md, "Client")
 * run with fw's generated TestService client. Each case throws on failure.
 * `compressionProbe` says whether the server implements CompressedRequest
 * (grpcio's Python server cannot see a request's compression flag).
 */
import { GrpcError, GrpcStatus, type MetadataRecord } from 'fw/grpc-client';
import type { StreamingOutputCallRequest, StreamingOutputCallResponse } from './generated/src/proto/grpc/testing/messages';
import { createTestServiceClient, createUnimplementedServiceClient, type TestServiceClient } from './generated/src/proto/grpc/testing/test.fw';

const TIMEOUT_MS = 10_000;
export const SPECIAL_STATUS_MESSAGE = '\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \u{1f608}\t\n';

export interface InteropTarget {
  address: string;
  /** True when the server fails `expect_compressed` on an uncompressed request (CompressedRequest). */
  compressionProbe: boolean;
}

type Clients = { plain: TestServiceClient; gzip: TestServiceClient; address: string; compressionProbe: boolean };
type Case = (clients: Clients) => Promise<void>;

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

function zeros(n: number): { body: Uint8Array } {
  return { body: new Uint8Array(n) };
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

async function expectCode(run: () => Promise<unknown>, code: GrpcStatus): Promise<GrpcError> {
  try {
    await run();
  } catch (error) {
    check(error instanceof GrpcError && error.code === code, `expected ${GrpcStatus[code]}, got ${String(error)}`);
    return error as GrpcError;
  }
  throw new Error(`expected ${GrpcStatus[code]}, the call succeeded`);
}

/** An async iterable the case feeds one request at a time. */
class Requests<T> implements AsyncIterable<T> {
  readonly #queue: (T | undefined)[] = [];
  #wake: (() => void) | undefined;
  send(message: T): void {
    this.#queue.push(message);
    this.#wake?.();
  }
  close(): void {
    this.#queue.push(undefined);
    this.#wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      while (this.#queue.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
      const next = this.#queue.shift();
      if (next === undefined) return;
      yield next;
    }
  }
}

async function sizesOf(responses: AsyncIterable<StreamingOutputCallResponse>): Promise<number[]> {
  const sizes: number[] = [];
  for await (const response of responses) sizes.push(response.payload?.body.byteLength ?? -1);
  return sizes;
}

const opts = (extra: object = {}): object => ({ deadline: TIMEOUT_MS, ...extra });

export const CASES: Record<string, Case> = {
  async empty_unary({ plain }) {
    check(typeof (await plain.emptyCall({}, opts())) === 'object', 'no response');
  },
  async large_unary({ plain }) {
    const response = await plain.unaryCall({ responseSize: 314159, payload: zeros(271828) }, opts());
    check(response.payload?.body.byteLength === 314159 && response.payload.body.every((b) => b === 0), 'payload is not 314159 zero bytes');
  },
  async client_compressed_unary({ plain, gzip, compressionProbe }) {
    const request = (expect: boolean) => ({ expectCompressed: { value: expect }, responseSize: 314159, payload: zeros(271828) });
    if (compressionProbe) await expectCode(() => plain.unaryCall(request(true), opts()), GrpcStatus.INVALID_ARGUMENT);
    check((await gzip.unaryCall(request(true), opts())).payload?.body.byteLength === 314159, 'compressed call: wrong size');
    check((await plain.unaryCall(request(false), opts())).payload?.body.byteLength === 314159, 'uncompressed call: wrong size');
  },
  async server_compressed_unary({ plain }) {
    for (const value of [true, false]) {
      const response = await plain.unaryCall({ responseCompressed: { value }, responseSize: 314159, payload: zeros(271828) }, opts());
      check(response.payload?.body.byteLength === 314159, `response_compressed=${value}: wrong size`);
    }
  },
  async client_streaming({ plain }) {
    const response = await plain.streamingInputCall(from([27182, 8, 1828, 45904].map((n) => ({ payload: zeros(n) }))), opts());
    check(response.aggregatedPayloadSize === 74922, `aggregated ${response.aggregatedPayloadSize}`);
  },
  async client_compressed_streaming({ plain, gzip, compressionProbe }) {
    const probe = { expectCompressed: { value: true }, payload: zeros(27182) };
    if (compressionProbe) await expectCode(() => plain.streamingInputCall(from([probe]), opts()), GrpcStatus.INVALID_ARGUMENT);
    const response = await gzip.streamingInputCall(from([probe, { expectCompressed: { value: false }, payload: zeros(45904) }]), opts());
    check(response.aggregatedPayloadSize === 73086, `aggregated ${response.aggregatedPayloadSize}`);
  },
  async server_streaming({ plain }) {
    const sizes = await sizesOf(plain.streamingOutputCall({ responseParameters: [31415, 9, 2653, 58979].map((size) => ({ size })) }, opts()));
    check(sizes.join() === '31415,9,2653,58979', `sizes ${sizes.join()}`);
  },
  async server_compressed_streaming({ plain }) {
    const responseParameters = [
      { size: 31415, compressed: { value: true } },
      { size: 92653, compressed: { value: false } },
    ];
    const sizes = await sizesOf(plain.streamingOutputCall({ responseParameters }, opts()));
    check(sizes.join() === '31415,92653', `sizes ${sizes.join()}`);
  },
  async ping_pong({ plain }) {
    const requests = new Requests<Partial<StreamingOutputCallRequest>>();
    const responses = plain.fullDuplexCall(requests, opts())[Symbol.asyncIterator]();
    for (const [size, body] of [[31415, 27182], [9, 8], [2653, 1828], [58979, 45904]] as const) {
      requests.send({ responseParameters: [{ size, intervalUs: 0, compressed: undefined }], payload: { type: 0, ...zeros(body) } });
      const reply = await responses.next();
      check(reply.done !== true && reply.value.payload?.body.byteLength === size, `expected ${size} bytes`);
    }
    requests.close();
    check((await responses.next()).done === true, 'extra response after half-close');
  },
  async empty_stream({ plain }) {
    const sizes = await sizesOf(plain.fullDuplexCall(from([]), opts()));
    check(sizes.length === 0, `${sizes.length} responses`);
  },
  async custom_metadata({ plain }) {
    const metadata: MetadataRecord = { 'x-grpc-test-echo-initial': 'test_initial_metadata_value', 'x-grpc-test-echo-trailing-bin': new Uint8Array([0xab, 0xab, 0xab]) };
    const verify = (kind: string, headers: MetadataRecord | undefined, trailers: MetadataRecord | undefined): void => {
      check(headers?.['x-grpc-test-echo-initial'] === 'test_initial_metadata_value', `${kind}: initial metadata ${JSON.stringify(headers)}`);
      const trailing = trailers?.['x-grpc-test-echo-trailing-bin'];
      check(trailing instanceof Uint8Array && Buffer.from(trailing).equals(Buffer.from([0xab, 0xab, 0xab])), `${kind}: trailing metadata ${String(trailing)}`);
    };
    let headers: MetadataRecord | undefined;
    let trailers: MetadataRecord | undefined;
    const capture = { metadata, onHeader: (h: MetadataRecord) => (headers = h), onTrailer: (t: MetadataRecord) => (trailers = t) };
    await plain.unaryCall({ responseSize: 314159, payload: zeros(271828) }, opts(capture));
    verify('unary', headers, trailers);
    headers = undefined;
    trailers = undefined;
    const sizes = await sizesOf(plain.fullDuplexCall(from([{ responseParameters: [{ size: 314159 }], payload: zeros(271828) }]), opts(capture)));
    check(sizes.join() === '314159', `full duplex sizes ${sizes.join()}`);
    verify('full duplex', headers, trailers);
  },
  async status_code_and_message({ plain }) {
    const responseStatus = { code: 2, message: 'test status message' };
    const unary = await expectCode(() => plain.unaryCall({ responseStatus }, opts()), GrpcStatus.UNKNOWN);
    check(unary.message === 'test status message', `unary message ${JSON.stringify(unary.message)}`);
    const duplex = await expectCode(() => sizesOf(plain.fullDuplexCall(from([{ responseStatus }]), opts())), GrpcStatus.UNKNOWN);
    check(duplex.message === 'test status message', `full duplex message ${JSON.stringify(duplex.message)}`);
  },
  async special_status_message({ plain }) {
    const error = await expectCode(() => plain.unaryCall({ responseStatus: { code: 2, message: SPECIAL_STATUS_MESSAGE } }, opts()), GrpcStatus.UNKNOWN);
    check(error.message === SPECIAL_STATUS_MESSAGE, `message ${JSON.stringify(error.message)}`);
  },
  async unimplemented_method({ plain }) {
    await expectCode(() => plain.unimplementedMethod({}, opts()), GrpcStatus.UNIMPLEMENTED);
  },
  async unimplemented_service({ address }) {
    const client = createUnimplementedServiceClient({ address });
    try {
      await expectCode(() => client.unimplementedCall({}, opts()), GrpcStatus.UNIMPLEMENTED);
    } finally {
      client.close();
    }
  },
  async cancel_after_begin({ plain }) {
    const abort = new AbortController();
    const requests = new Requests<{ payload: { body: Uint8Array } }>();
    const call = plain.streamingInputCall(requests, opts({ signal: abort.signal }));
    abort.abort();
    await expectCode(() => call, GrpcStatus.CANCELLED);
    requests.close();
  },
  async cancel_after_first_response({ plain }) {
    const abort = new AbortController();
    const requests = new Requests<Partial<StreamingOutputCallRequest>>();
    const responses = plain.fullDuplexCall(requests, opts({ signal: abort.signal }))[Symbol.asyncIterator]();
    requests.send({ responseParameters: [{ size: 31415, intervalUs: 0, compressed: undefined }], payload: { type: 0, ...zeros(27182) } });
    const first = await responses.next();
    check(first.done !== true && first.value.payload?.body.byteLength === 31415, 'first response size');
    abort.abort();
    await expectCode(() => responses.next(), GrpcStatus.CANCELLED);
    requests.close();
  },
  async timeout_on_sleeping_server({ plain }) {
    const requests = new Requests<{ payload: { body: Uint8Array } }>();
    requests.send({ payload: zeros(27182) });
    await expectCode(() => sizesOf(plain.fullDuplexCall(requests, { deadline: 1 })), GrpcStatus.DEADLINE_EXCEEDED);
    requests.close();
  },
};

/** Runs every case against `target`: case name → undefined (passed) or the failure message. */
export async function runInteropCases(target: InteropTarget): Promise<Record<string, string | undefined>> {
  const plain = createTestServiceClient({ address: target.address });
  const gzip = createTestServiceClient({ address: target.address, compression: 'gzip' });
  const results: Record<string, string | undefined> = {};
  try {
    for (const [name, run] of Object.entries(CASES)) {
      try {
        await run({ plain, gzip, address: target.address, compressionProbe: target.compressionProbe });
        results[name] = undefined;
      } catch (error) {
        results[name] = error instanceof Error ? error.message : String(error);
      }
    }
  } finally {
    plain.close();
    gzip.close();
  }
  return results;
}
