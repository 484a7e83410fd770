/**
 * The example HTTP application: users CRUD under one router per API version,
 * a health route, a native route, and the 404 / error handling of spec 7.2.
 */
import { server, type ErrorHandler, type FwApplication } from 'fw';
import { UserStore, usersRouter } from './users-router';

/** Builds the app; `main.ts` starts it, tests call `createFetchHandler()` on it. */
export function createApp(store = new UserStore()): FwApplication {
  const started = Date.now();
  const app = server.http();

  app.get('/health', (req, res) => {
    res.json({ status: 'ok', timestamp: new Date().toISOString(), uptime: (Date.now() - started) / 1000 });
  });

  app.use('/api/v1', usersRouter(store, (user) => user));
  app.use('/api/v2', usersRouter(store, (user) => ({ ...user, displayName: `${user.name} <${user.email}>` })));

  app.withRoutes({
    '/hello/:name': (request) => Response.json({ hello: request.params.name }),
  });

  // Errors with a statusCode answer that status and {error}; anything else is
  // a generic 500 (the framework's default) — shown here explicitly.
  const onError: ErrorHandler = (error, req, res, next) => {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status < 500) {
      res.status(status).json({ error: (error as Error).message });
      return;
    }
    next(error);
  };
  app.use(onError);
  return app;
}
