/**
 * One call of a multiplexed connection (WebSocket, TCP): its state in the
 * session, and its ReplySink — the connection's envelopes addressed by this
 * call's id and trace id, with the handler's headers on the first reply and
 * trailers on the last (wire/envelope-metadata.ts).
 */
import type { RequestContext } from '../../core/request-context';
import type { AsyncQueue } from '../async-queue';
import type { ServiceError } from '../errors';
import type { ResolvedMethod } from '../registry';
import type { ReplySink } from '../transport-adapter';
import { envelopeMetadata } from '../wire/envelope-metadata';
import type { CallCancellation } from './call-cancellation';
import type { EnvelopeReplies } from './envelope-replies';

/** A running call of a session; fixed shape (every field set in the constructor). */
export class EnvelopeCall implements ReplySink {
  /** Set once the call's context exists: what the handler set through `context.call` rides on the replies. */
  context: RequestContext | undefined = undefined;
  /** Cancelled or past its deadline: nothing more is sent for it. */
  over = false;
  /** Fires at the call's deadline. */
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  readonly #replies: EnvelopeReplies;

  constructor(
    replies: EnvelopeReplies,
    readonly id: unknown,
    readonly method: string,
    readonly traceId: string,
    readonly resolved: ResolvedMethod | undefined,
    /** The client stream's messages, for client and bidi streams. */
    readonly queue: AsyncQueue<unknown> | undefined,
    /** This call's own cancellation (perCallSignals), else undefined: the session's signal serves. */
    readonly cancellation: CallCancellation | undefined,
  ) {
    this.#replies = replies;
  }

  message(data: unknown): void {
    this.#replies.response(this.id, this.method, data, this.traceId, envelopeMetadata(this.context, true));
  }

  /** Throws when the item cannot be encoded (after its error reply), so the stream stops. */
  item(data: unknown): void {
    this.#replies.item(this.id, data, this.traceId, envelopeMetadata(this.context, false));
  }

  end(): void {
    this.#replies.end(this.id, this.traceId, envelopeMetadata(this.context, true));
  }

  fail(error: ServiceError): void {
    this.#replies.error(this.id, error, this.traceId, envelopeMetadata(this.context, true));
  }
}
