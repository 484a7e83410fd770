/**
 * `FwRequest` (spec 4.4): Node's `IncomingMessage` with the Express-shaped
 * surface that Express middleware touches. Node constructs it for every request
 * (`http.createServer({ IncomingMessage: FwRequest })`), so there is no
 * per-request prototype swap, and every field is declared up front.
 */
import { IncomingMessage, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import type { Socket } from 'node:net';
import proxyaddr from 'proxy-addr';
import { createHeaderBag, makeHeadersIterable, type IterableHeaders } from './iterable-headers';
import type { TrustFunction } from './trust-proxy';

/** A file accepted by the upload middleware: `req.file` / `req.files`. */
export interface UploadedFile {
  /** Form field the file came in. */
  fieldname: string;
  /** Name the client gave the file. */
  originalname: string;
  encoding: string;
  mimetype: string;
  /** Bytes stored. */
  size: number;
  /** Disk storage: directory and random name it was stored under, and the full path. */
  destination?: string;
  filename?: string;
  path?: string;
  /** Memory storage: the content. */
  buffer?: Buffer;
}

/** Session data exposed by the session middleware (`req.session`). */
export interface SessionData {
  [key: string]: unknown;
}

/**
 * A `param()` callback (docs/routing.md): `value` is the captured, decoded
 * parameter, `name` its name. `Res` is the response type (`FwResponse` on fw's
 * routers).
 */
export type ParamCallback<Res extends ServerResponse = ServerResponse> = (req: FwRequest, res: Res, next: (error?: unknown) => void, value: string, name: string) => unknown;

/**
 * The application a request belongs to (`req.app`): the part of Express's
 * application that middleware reach through it.
 */
export interface RequestApplication {
  /** An application setting (`app.set(name, value)`), as Express middleware reads them. */
  get(setting: string): unknown;
  /** With one argument, a setting's value; with two, sets it. */
  set(setting: string, ...value: unknown[]): unknown;
  enabled(setting: string): boolean;
  disabled(setting: string): boolean;
  enable(setting: string): unknown;
  disable(setting: string): unknown;
  /** `app.param(name, callback)` (docs/routing.md). */
  param(name: string | string[], callback: ParamCallback): unknown;
  /** Every setting by name. */
  readonly settings: Record<string, unknown>;
  /** Application-wide values (`settings` among them). */
  readonly locals: Record<string, unknown>;
  /** The compiled `trust proxy` setting, null when no proxy is trusted. */
  readonly trustProxy: TrustFunction | null;
}

function firstForwarded(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const comma = text.indexOf(',');
  return (comma === -1 ? text : text.slice(0, comma)).trim() || undefined;
}

/** Parameters captured by the route pattern; an object that inherits nothing. */
export type RouteParams = Record<string, string | undefined>;

/**
 * The prototype of every `req.params`: empty, frozen, itself with a null
 * prototype, so a params object inherits nothing (no `constructor`, no
 * `__proto__` accessor). A bare `Object.create(null)` would too, but V8 makes
 * it a dictionary, and every parameter stored into one missed the inline cache
 * (see docs/routing.md, "req.params").
 */
const PARAMS_BASE: RouteParams = Object.freeze(Object.create(null) as RouteParams);

/** A fresh, empty `req.params`. */
export function createRouteParams(): RouteParams {
  return Object.create(PARAMS_BASE) as RouteParams;
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;

const baseHeaders = Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'headers');

/**
 * The request object handlers receive.
 *
 * @example
 * app.get('/users/:id', (req, res) => {
 *   res.json({ id: req.params.id, page: req.query.page, agent: req.get('user-agent') });
 * });
 */
export class FwRequest extends IncomingMessage {
  /**
   * The full URL (`http://host:port/path?query`) in route handlers (spec 4.4);
   * the mount-relative path and query, as Express gives it, while middleware
   * mounted with `use()` has the request (docs/http.md, "Express middleware").
   * Assigning a path rewrites it (as Express middleware does).
   */
  declare url: string;
  /** Node's header object, also iterable as `[name, value]` pairs. */
  declare headers: IterableHeaders;
  declare method: string;

  /** Route parameters (`:name`, `*`, RegExp groups); inherits nothing. */
  params: RouteParams = createRouteParams();
  /** Set by the body-parsing middleware; `undefined` until then. */
  body: unknown = undefined;
  /** Path and query as received, before any mount prefix was stripped. */
  originalUrl = '';
  /** The mount prefixes stripped so far (`/api/v1` inside a router mounted there). */
  baseUrl = '';
  /** The application handling the request. */
  app: RequestApplication | null = null;
  /** The response paired with this request (the handler's `res`). */
  res: ServerResponse | null = null;
  /** Set by the upload middleware after a single-file upload. */
  file: UploadedFile | undefined = undefined;
  /** Set by the session middleware. */
  session: SessionData | undefined = undefined;
  /** Set by authentication middleware. */
  user: unknown = undefined;

  #rawUrl = '';
  /** Whether `url` reads as Express's path form: set by the router for each handler it calls. */
  #pathFormUrl = false;
  #fullUrl: string | null = null;
  #pathname: string | null = null;
  #queryString: string | null = null;
  #query: ParsedUrlQuery | null = null;
  #queryOverride: unknown = undefined;
  #headers: IterableHeaders | null = null;

  constructor(socket: Socket) {
    super(socket);
  }

  /** Path and query of the current (mount-relative) URL, as Node gives `req.url`. */
  get rawUrl(): string {
    return this.#rawUrl;
  }

  /** The path of the URL, relative to the router's mount point (no query). */
  get path(): string {
    let p = this.#pathname;
    if (p === null) {
      const raw = this.#rawUrl;
      const q = raw.indexOf('?');
      p = q === -1 ? raw : raw.slice(0, q);
      if (p === '') p = '/';
      this.#pathname = p;
    }
    return p;
  }

  /** Parsed query string; a null-prototype object of strings and string arrays, parsed on first use. */
  get query(): ParsedUrlQuery {
    if (this.#queryOverride !== undefined) return this.#queryOverride as ParsedUrlQuery;
    const raw = this.#rawUrl;
    const q = raw.indexOf('?');
    const qs = q === -1 ? '' : raw.slice(q + 1);
    if (this.#query === null || this.#queryString !== qs) {
      this.#queryString = qs;
      this.#query = parseQueryString(qs);
    }
    return this.#query;
  }

  set query(value: ParsedUrlQuery) {
    this.#queryOverride = value;
  }

  /** The client address: the socket peer, or with `trust proxy` the first untrusted `X-Forwarded-For` hop. */
  get ip(): string {
    const trust = this.#trust();
    if (trust === null) return this.socket?.remoteAddress ?? '';
    return proxyaddr(this, trust);
  }

  /** With `trust proxy`: the forwarded client addresses, client first; otherwise empty. */
  get ips(): string[] {
    const trust = this.#trust();
    if (trust === null) return [];
    const addresses = proxyaddr.all(this, trust);
    addresses.reverse().pop();
    return addresses;
  }

  /** `https` on a TLS socket (or, from a trusted proxy, `X-Forwarded-Proto`), else `http`. */
  get protocol(): 'http' | 'https' {
    const tls = (this.socket as Socket & { encrypted?: boolean } | null)?.encrypted === true;
    const trust = this.#trust();
    if (trust !== null && trust(this.socket?.remoteAddress ?? '', 0)) {
      const forwarded = firstForwarded(this.headers['x-forwarded-proto']);
      if (forwarded !== undefined) return forwarded.toLowerCase() === 'https' ? 'https' : 'http';
    }
    return tls ? 'https' : 'http';
  }

  /** True on a TLS socket. */
  get secure(): boolean {
    return this.protocol === 'https';
  }

  /** The `Host` header (or, from a trusted proxy, `X-Forwarded-Host`) without its port. */
  get hostname(): string {
    const trust = this.#trust();
    const forwarded = trust !== null && trust(this.socket?.remoteAddress ?? '', 0) ? firstForwarded(this.headers['x-forwarded-host']) : undefined;
    const host = forwarded ?? this.headers.host ?? '';
    if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
    const colon = host.indexOf(':');
    return colon === -1 ? host : host.slice(0, colon);
  }

  /**
   * A request header by case-insensitive name (`referer` and `referrer` are interchangeable).
   *
   * @example
   * const type = req.get('Content-Type');
   */
  get(name: string): string | string[] | undefined {
    const key = name.toLowerCase();
    if (key === 'referer' || key === 'referrer') return this.headers.referer ?? (this.headers['referrer'] as string | undefined);
    return this.headers[key];
  }

  /** Alias of `get(name)`. */
  header(name: string): string | string[] | undefined {
    return this.get(name);
  }

  #trust(): TrustFunction | null {
    return this.app?.trustProxy ?? null;
  }

  /** Internal: the router says whether the handler it calls next is `use()` middleware (path-form `url`) or a route handler (full `url`). */
  setPathFormUrl(pathForm: boolean): void {
    this.#pathFormUrl = pathForm;
  }

  /** Internal: the router sets the mount-relative URL without building a full URL. */
  setRawUrl(value: string): void {
    this.#rawUrl = value;
    this.#fullUrl = null;
    this.#pathname = null;
  }

  /** Node's lazy header build, into an iterable object; Node's own rules merge duplicates. */
  #buildHeaders(): IterableHeaders {
    const headers = createHeaderBag();
    const raw = this.rawHeaders;
    const add = (this as unknown as { _addHeaderLine(name: string, value: string, dest: IncomingHttpHeaders): void })._addHeaderLine;
    for (let i = 0; i < raw.length; i += 2) add.call(this, raw[i]!, raw[i + 1]!, headers);
    baseHeaders!.set!.call(this, headers);
    this.#headers = headers;
    return headers;
  }

  #getUrl(): string {
    let full = this.#fullUrl;
    if (full === null) {
      const host = this.headers.host ?? 'localhost';
      full = `${this.protocol}://${host}${this.#rawUrl.startsWith('/') ? '' : '/'}${this.#rawUrl === '*' ? '' : this.#rawUrl}`;
      this.#fullUrl = full;
    }
    return full;
  }

  static {
    // Accessors declared here rather than in the class body: Node declares `url`
    // and `headers` as plain properties and assigns `url` inside its constructor,
    // before our private fields exist.
    Object.defineProperty(FwRequest.prototype, 'url', {
      configurable: true,
      enumerable: true,
      get(this: FwRequest): string {
        return this.#pathFormUrl ? this.#rawUrl : this.#getUrl();
      },
      set(this: FwRequest, value: string) {
        if (!(#rawUrl in this)) return;
        const text = String(value);
        if (text.charCodeAt(0) === 47) {
          this.setRawUrl(text);
          return;
        }
        const origin = ABSOLUTE_URL.exec(text);
        this.setRawUrl(origin === null ? text : text.slice(origin[0].length) || '/');
      },
    });
    Object.defineProperty(FwRequest.prototype, 'headers', {
      configurable: true,
      enumerable: true,
      get(this: FwRequest): IterableHeaders {
        return this.#headers ?? this.#buildHeaders();
      },
      set(this: FwRequest, value: IterableHeaders) {
        baseHeaders!.set!.call(this, value);
        if (#headers in this) this.#headers = value === null || typeof value !== 'object' ? null : makeHeadersIterable(value);
      },
    });
  }
}
