/**
 * The call metadata model on envelope transports (WebSocket, UDP, TCP):
 * response headers and trailers a handler set through `context.call` travel
 * as `headers` and `trailers` fields of the reply envelopes (text values;
 * `-bin` values base64). Headers go out once, on the first reply of the call;
 * trailers on its last (response, stream end or error).
 */
import { CollectedCallMetadata, metadataText, type MetadataValue } from '../../core/call-metadata';
import type { RequestContext } from '../../core/request-context';

/** The optional metadata fields of a reply envelope. */
export interface EnvelopeMetadata {
  headers?: Record<string, string | string[]>;
  trailers?: Record<string, string | string[]>;
}

function text(values: ReadonlyMap<string, readonly MetadataValue[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, list] of values) out[key] = list.length === 1 ? metadataText(list[0] as MetadataValue) : list.map(metadataText);
  return out;
}

/**
 * What the reply about to be sent carries: the headers if not sent yet (then
 * marked sent), the trailers when this is the call's last reply. Undefined
 * when the handler set neither (the common case: no fields, no allocation).
 */
export function envelopeMetadata(context: RequestContext | undefined, last: boolean): EnvelopeMetadata | undefined {
  const call = context?.call;
  if (!(call instanceof CollectedCallMetadata)) return undefined;
  let meta: EnvelopeMetadata | undefined;
  if (!call.headerSent && call.headers !== undefined) meta = { headers: text(call.headers) };
  call.sendHeader();
  if (last && call.trailers !== undefined) (meta ??= {}).trailers = text(call.trailers);
  return meta;
}
