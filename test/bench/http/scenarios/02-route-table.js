'use strict';
// A 1000-route table (static and dynamic routes under a shared /api/v1 prefix),
// hitting its last dynamic route.
const COUNT = 1000;

function routes(register) {
  for (let i = 0; i < COUNT; i++) {
    if (i % 2 === 0) register(`/api/v1/resource${i}`, () => ({ list: i }));
    else register(`/api/v1/resource${i}/:id`, (params) => ({ resource: i, id: params.id }));
  }
}

module.exports = {
  name: '1000-route table, last dynamic route',
  group: 'routing', // with hello: their ratio is taken within one pass
  request: { method: 'GET', path: `/api/v1/resource${COUNT - 1}/42` },
  fw(app) {
    routes((path, reply) => app.get(path, (req, res) => res.json(reply(req.params))));
  },
  fastify(app) {
    routes((path, reply) => app.get(path, async (req) => reply(req.params)));
  },
  express(app) {
    routes((path, reply) => app.get(path, (req, res) => res.json(reply(req.params))));
  },
  node() {
    // A bare server has no router: a Map of static paths plus a prefix check stands in.
    const table = new Map();
    routes((path, reply) => table.set(path.replace('/:id', ''), reply));
    return (req, res) => {
      const slash = req.url.lastIndexOf('/');
      const reply = table.get(req.url) || table.get(req.url.slice(0, slash));
      if (reply === undefined) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(reply({ id: req.url.slice(slash + 1) })));
    };
  },
};
