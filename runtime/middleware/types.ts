/**
 * The handler shape every `fw/middleware` export returns: a Connect/Express
 * middleware. `FwRequest`/`FwResponse` subclass Node's `IncomingMessage` and
 * `ServerResponse`, so these mount with `app.use()` on an fw app, and also on
 * Express or a bare `node:http` server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Continues the chain; an argument is an error for the app's error handler. */
export type NextFunction = (error?: unknown) => void;

/** Connect-style handler: what Express middleware is. */
export type ConnectHandler = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void;
