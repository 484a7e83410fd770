'use strict';
// POST a 1 KiB JSON body and echo it back.
const payload = { items: Array.from({ length: 12 }, (_, id) => ({ id, name: `item-${id}`, ok: id % 2 === 0 })), pad: '' };
payload.pad = 'x'.repeat(1024 - JSON.stringify(payload).length);
const BODY = JSON.stringify(payload);

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

module.exports = {
  name: 'POST 1 KiB JSON echo',
  request: { method: 'POST', path: '/echo', body: BODY, headers: { 'content-type': 'application/json' } },
  fw(app) {
    let json;
    try {
      json = require('fw/middleware').json;
    } catch {
      json = undefined;
    }
    if (typeof json === 'function') {
      app.post('/echo', json(), (req, res) => res.json(req.body));
    } else {
      app.post('/echo', async (req, res) => res.json(await readJson(req)));
    }
  },
  fastify(app) {
    app.post('/echo', async (req) => req.body);
  },
  express(app, express) {
    app.post('/echo', express.json(), (req, res) => res.json(req.body));
  },
  node() {
    return (req, res) => {
      readJson(req).then(
        (body) => {
          res.setHeader('content-type', 'application/json; charset=utf-8');
          res.end(JSON.stringify(body));
        },
        () => {
          res.statusCode = 400;
          res.end();
        },
      );
    };
  },
};
