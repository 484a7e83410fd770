'use strict';
// GET JSON hello: the per-request floor of each framework.
const BODY = { hello: 'world' };

module.exports = {
  name: 'GET JSON hello',
  group: 'routing', // with the route table: their ratio is taken within one pass
  request: { method: 'GET', path: '/hello' },
  fw(app) {
    app.get('/hello', (req, res) => res.json(BODY));
  },
  fastify(app) {
    app.get('/hello', async () => BODY);
  },
  express(app) {
    app.get('/hello', (req, res) => res.json(BODY));
  },
  node() {
    return (req, res) => {
      if (req.method === 'GET' && req.url === '/hello') {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(BODY));
        return;
      }
      res.statusCode = 404;
      res.end();
    };
  },
};
