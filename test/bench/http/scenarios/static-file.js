'use strict';
// GET a 4 KiB stylesheet from a static directory mounted under /static —
// fw: staticFiles() from fw/middleware; Fastify: @fastify/static; Express:
// express.static; node: the send package. All answer with ETag and
// Last-Modified; the client never revalidates, so every answer is a 200 with
// the file. fw answers a small unchanged file from memory after one fs.stat
// (runtime/http/static-file-cache.ts); the others open and stream it per request.
const { mkdirSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(tmpdir(), 'fw-bench-static');
mkdirSync(ROOT, { recursive: true });
writeFileSync(join(ROOT, 'style.css'), 'body { color: #333; margin: 0 auto; }\n'.repeat(4096 / 40));

module.exports = {
  name: 'GET 4 KiB static file',
  request: { method: 'GET', path: '/static/style.css' },
  fw(app) {
    const { staticFiles } = require('fw/middleware');
    app.use('/static', staticFiles({ root: ROOT }));
  },
  fastify(app) {
    app.register(require('@fastify/static'), { root: ROOT, prefix: '/static/' });
  },
  express(app, express) {
    app.use('/static', express.static(ROOT));
  },
  node() {
    const send = require('send');
    return (req, res) => {
      if (req.method === 'GET' && req.url.startsWith('/static/')) {
        send(req, req.url.slice('/static'.length), { root: ROOT }).pipe(res);
        return;
      }
      res.statusCode = 404;
      res.end();
    };
  },
};
