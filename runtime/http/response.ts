/**
 * `FwResponse` (spec 4.4): Node's `ServerResponse` with the Express-shaped
 * helpers handlers and Express middleware use. Node constructs it for every
 * request (`http.createServer({ ServerResponse: FwResponse })`).
 */
import { ServerResponse, STATUS_CODES, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { serialize as serializeCookie, type CookieSerializeOptions } from 'cookie';
import accepts from 'accepts';
import { sign as signCookie } from 'cookie-signature';
import encodeUrl from 'encodeurl';
import escapeHtml from 'escape-html';
import vary from 'vary';
import { format as formatContentType, parse as parseContentType } from 'content-type';
import { contentType as mimeContentType } from 'mime-types';
import { create as contentDisposition } from 'content-disposition';
import { sendFile, type SendFileOptions } from './send-file';
import type { FwRequest } from './request';

const JSON_TYPE = 'application/json; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const OCTET_TYPE = 'application/octet-stream';
/** Node's own `writeHead`: a response whose `writeHead` differs has been hooked by a middleware. */
const NODE_WRITE_HEAD = ServerResponse.prototype.writeHead;

/** Options of `res.cookie()`; `maxAge` is milliseconds, as in Express. */
export interface CookieOptions extends Omit<CookieSerializeOptions, 'maxAge' | 'encode'> {
  maxAge?: number;
  encode?: (value: string) => string;
  /** Signs the value with the secret cookie-parser was given (`cookieParser(secret)`), which reads it back into `req.signedCookies`. */
  signed?: boolean;
}

/**
 * The response object handlers receive.
 *
 * @example
 * app.post('/users', (req, res) => {
 *   res.status(201).header('X-Created', 'yes').json({ id: '1' });
 * });
 */
export class FwResponse extends ServerResponse<FwRequest> {
  /** The application handling the request. */
  app: unknown = null;
  #locals: Record<string, unknown> | null = null;
  /** The text body `json`/`send`/`html` ended with, for `getHeader('content-length')`. */
  #textBody: string | null = null;

  /** Per-request values for middleware and views (`res.locals`). */
  get locals(): Record<string, unknown> {
    if (this.#locals === null) this.#locals = Object.create(null) as Record<string, unknown>;
    return this.#locals;
  }

  set locals(value: Record<string, unknown>) {
    this.#locals = value;
  }

  /** Sets the status code; chainable. */
  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 999) throw new RangeError(`Invalid status code: ${String(code)}`);
    this.statusCode = code;
    return this;
  }

  /** Sets the status and sends its reason phrase (`Not Found`) as a `text/plain` body, as Express does. */
  sendStatus(code: number): this {
    this.status(code);
    return this.type('txt').send(STATUS_CODES[code] ?? String(code));
  }

  /**
   * Sets a header (or several from an object); chainable. As in Express, a
   * `Content-Type` gets the charset of its type when it has none
   * (`application/javascript` → `application/javascript; charset=utf-8`),
   * and a list of content types is a `TypeError`.
   */
  set(field: string | Record<string, OutgoingHttpHeader>, value?: OutgoingHttpHeader): this {
    if (typeof field === 'string') {
      const text = value === undefined ? '' : (Array.isArray(value) ? value.map(String) : String(value));
      if (field.length === 12 && field.toLowerCase() === 'content-type') {
        if (Array.isArray(text)) throw new TypeError('Content-Type cannot be set to a list');
        this.setHeader(field, mimeContentType(text) || text);
        return this;
      }
      this.setHeader(field, text);
    } else {
      for (const name of Object.keys(field)) this.set(name, field[name]);
    }
    return this;
  }

  /** Sets a header; chainable (spec 4.4 `header(name, value)`). */
  header(field: string | Record<string, OutgoingHttpHeader>, value?: OutgoingHttpHeader): this {
    return this.set(field, value);
  }

  /** Appends a value to a header (e.g. a second `Set-Cookie`); chainable. */
  append(field: string, value: string | string[]): this {
    const previous = this.getHeader(field);
    const added = Array.isArray(value) ? value : [value];
    const next = previous === undefined ? added : (Array.isArray(previous) ? previous.map(String) : [String(previous)]).concat(added);
    return this.set(field, next.length === 1 ? next[0]! : next);
  }

  /** A response header as set so far. */
  get(field: string): string | number | string[] | undefined {
    return this.getHeader(field);
  }

  /**
   * Sets `Content-Type` from a MIME type or an extension (`'json'`, `'.html'`),
   * with the type's charset as `set()` adds it (Express's rules); chainable.
   */
  type(value: string): this {
    return this.set('Content-Type', value.includes('/') ? value : mimeContentType(value) || OCTET_TYPE);
  }

  /** Alias of `type()`. */
  contentType(value: string): this {
    return this.type(value);
  }

  /**
   * Sends `value` as JSON.
   *
   * @example
   * res.json({ ok: true });
   */
  json(value: unknown): this {
    const body = JSON.stringify(value);
    this.#textType(JSON_TYPE);
    this.#endText(body === undefined ? '' : body);
    return this;
  }

  /** Sends an HTML string. */
  html(markup: string): this {
    this.#textType(HTML_TYPE);
    this.#endText(markup);
    return this;
  }

  /**
   * Sends a body: a string (HTML unless a type is set), bytes, or anything
   * else as JSON; with no argument, ends the response (e.g. after `status(204)`).
   */
  send(body?: unknown): this {
    if (body === undefined || body === null) {
      this.end();
      return this;
    }
    if (typeof body === 'string') {
      this.#textType(HTML_TYPE);
      this.#endText(body);
      return this;
    }
    if (body instanceof Uint8Array) {
      if (!this.hasHeader('content-type')) this.setHeader('content-type', OCTET_TYPE);
      this.end(body);
      return this;
    }
    return this.json(body);
  }

  /**
   * The content type of a text body, as Express's `send()` has it: `fallback`
   * when none is set, else the type set with its charset made `utf-8` (the
   * body is sent as UTF-8 whatever it said).
   */
  #textType(fallback: string): void {
    const type = super.getHeader('content-type');
    if (type === undefined) {
      this.setHeader('content-type', fallback);
    } else if (typeof type === 'string') {
      const parsed = parseContentType(type);
      parsed.parameters.charset = 'utf-8';
      this.setHeader('content-type', formatContentType(parsed));
    }
  }

  /**
   * Ends with a whole text body. Node sends its Content-Length; the header is
   * also set on the response when a middleware has hooked `writeHead`
   * (compression, morgan, sessions read it there), and `getHeader` reports it
   * afterwards either way. Setting it every time cost about 5% of a small
   * JSON response.
   */
  #endText(body: string): void {
    if (this.writeHead !== NODE_WRITE_HEAD && !this.headersSent && !this.hasHeader('content-length')) {
      this.setHeader('content-length', String(Buffer.byteLength(body)));
    }
    this.#textBody = body;
    this.end(body);
  }

  /** A response header; after `json`/`send`/`html`, `content-length` is the body's length (a string, as Express sets it) even when Node computed it. */
  override getHeader(name: string): string | number | string[] | undefined {
    const value = super.getHeader(name);
    if (value !== undefined || this.#textBody === null || name.toLowerCase() !== 'content-length') return value;
    return String(Buffer.byteLength(this.#textBody));
  }

  /** All response headers; after `json`/`send`/`html`, with `content-length` as `getHeader` reports it. */
  override getHeaders(): OutgoingHttpHeaders {
    const headers = super.getHeaders();
    if (this.#textBody !== null && headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(this.#textBody));
    return headers;
  }

  /** Sets `Location`, percent-encoding what is not yet encoded (as Express does); chainable. */
  location(url: string): this {
    this.setHeader('Location', encodeUrl(url));
    return this;
  }

  /**
   * Redirects (302 unless a status is given), with Express 5's body: `Found.
   * Redirecting to <url>` as text, or as an HTML paragraph when the client
   * prefers HTML, or empty when it accepts neither.
   */
  redirect(statusOrUrl: number | string, url?: string): void {
    const status = typeof statusOrUrl === 'number' ? statusOrUrl : 302;
    this.status(status).location(typeof statusOrUrl === 'string' ? statusOrUrl : url ?? '/');
    const address = this.getHeader('Location') as string;
    const reason = STATUS_CODES[status] ?? String(status);
    let body = '';
    vary(this, 'Accept');
    const preferred = this.req === undefined ? 'text' : accepts(this.req).type(['text', 'html']);
    if (preferred === 'text') {
      this.setHeader('Content-Type', 'text/plain; charset=utf-8');
      body = `${reason}. Redirecting to ${address}`;
    } else if (preferred === 'html') {
      this.setHeader('Content-Type', HTML_TYPE);
      body = `<p>${reason}. Redirecting to ${escapeHtml(address)}</p>`;
    }
    this.setHeader('Content-Length', Buffer.byteLength(body));
    if (this.req?.method === 'HEAD') this.end();
    else this.end(body);
  }

  /** Adds a `Set-Cookie` (objects are stored as `j:<json>`, signed ones as `s:<value>.<signature>`, as cookie-parser reads them); chainable. */
  cookie(name: string, value: unknown, options: CookieOptions = {}): this {
    const { maxAge, signed, ...rest } = options;
    let text = typeof value === 'object' && value !== null ? 'j:' + JSON.stringify(value) : String(value);
    if (signed === true) {
      const secret = (this.req as { secret?: unknown }).secret;
      if (typeof secret !== 'string' || secret === '') throw new Error('res.cookie(): a signed cookie needs cookieParser(secret) mounted before it');
      text = 's:' + signCookie(text, secret);
    }
    const serializeOptions: CookieSerializeOptions = { path: '/', ...rest };
    if (maxAge !== undefined && Number.isFinite(maxAge)) {
      serializeOptions.expires = new Date(Date.now() + maxAge);
      serializeOptions.maxAge = Math.floor(maxAge / 1000);
    }
    return this.append('Set-Cookie', serializeCookie(name, text, serializeOptions));
  }

  /** Expires a cookie; chainable. */
  clearCookie(name: string, options: CookieOptions = {}): this {
    const { maxAge: _ignored, ...rest } = options;
    return this.cookie(name, '', { ...rest, expires: new Date(1) });
  }

  /** Sets `Content-Disposition: attachment` (and the type from the file name); chainable. */
  attachment(filename?: string): this {
    if (filename !== undefined) this.type(filename.slice(filename.lastIndexOf('.')) || OCTET_TYPE);
    this.setHeader('Content-Disposition', contentDisposition(filename));
    return this;
  }

  /**
   * Streams a file with its content type, honouring Range and conditional GET.
   * Rejects (with `statusCode`, e.g. 404) when the file cannot be read.
   *
   * @example
   * app.get('/report', async (req, res) => { await res.sendFile('/srv/report.pdf'); });
   */
  sendFile(path: string, options: SendFileOptions = {}): Promise<void> {
    return sendFile(this.req, this, path, options);
  }

  /**
   * Sends a file as a download named `filename` (default: its base name).
   *
   * @example
   * app.get('/export', (req, res) => res.download('/srv/export.csv', 'users.csv'));
   */
  download(path: string, filename?: string, options: SendFileOptions = {}): Promise<void> {
    const name = filename ?? path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
    this.setHeader('Content-Disposition', contentDisposition(name));
    return sendFile(this.req, this, path, options);
  }
}
