/**
 * `grpc-status-details-bin` for refused messages: a `google.rpc.Status`
 * whose one detail is a `google.rpc.BadRequest` listing every field
 * violation, as gRPC clients (grpcio's rpc_status, Connect's findDetails,
 * grpc-gateway) read it. Written with @bufbuild/protobuf's wire writer; the
 * field numbers are those of google/rpc/status.proto and error_details.proto.
 */
import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import type { FieldViolation } from './violations';

/** Trailer key of the rich error model. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
/** Type URL of the one detail. */
export const BAD_REQUEST_TYPE_URL = 'type.googleapis.com/google.rpc.BadRequest';

function badRequest(violations: readonly FieldViolation[]): Uint8Array {
  const w = new BinaryWriter();
  for (const v of violations) {
    // BadRequest.field_violations = 1: FieldViolation { field = 1, description = 2, reason = 3 }
    w.tag(1, 2).fork().tag(1, 2).string(String(v.field ?? '')).tag(2, 2).string(String(v.message ?? '')).tag(3, 2).string(String(v.rule ?? '')).join();
  }
  return w.finish();
}

/** Encodes `google.rpc.Status {code, message, details: [Any(BadRequest)]}`. */
export function encodeBadRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Buffer {
  const w = new BinaryWriter();
  w.tag(1, 0).int32(code).tag(2, 2).string(message);
  w.tag(3, 2).fork().tag(1, 2).string(BAD_REQUEST_TYPE_URL).tag(2, 2).bytes(badRequest(violations)).join();
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Reads the violations back out of `grpc-status-details-bin` (clients, tests); [] when there are none. */
export function decodeBadRequestStatus(bytes: Uint8Array): { code: number; message: string; violations: FieldViolation[] } {
  const out = { code: 0, message: '', violations: [] as FieldViolation[] };
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 1) out.code = r.int32();
    else if (no === 2) out.message = r.string();
    else if (no === 3) {
      const any = new BinaryReader(r.bytes());
      let typeUrl = '';
      let value: Uint8Array | undefined;
      while (any.pos < any.len) {
        const [f, w] = any.tag();
        if (f === 1) typeUrl = any.string();
        else if (f === 2) value = any.bytes();
        else any.skip(w, f);
      }
      if (typeUrl === BAD_REQUEST_TYPE_URL && value !== undefined) out.violations.push(...readViolations(value));
    } else r.skip(wt, no);
  }
  return out;
}

function readViolations(bytes: Uint8Array): FieldViolation[] {
  const list: FieldViolation[] = [];
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no !== 1) {
      r.skip(wt, no);
      continue;
    }
    const v = new BinaryReader(r.bytes());
    const item: FieldViolation = { field: '', rule: '', message: '' };
    while (v.pos < v.len) {
      const [f, w] = v.tag();
      if (f === 1) item.field = v.string();
      else if (f === 2) item.message = v.string();
      else if (f === 3) item.rule = v.string();
      else v.skip(w, f);
    }
    list.push(item);
  }
  return list;
}
