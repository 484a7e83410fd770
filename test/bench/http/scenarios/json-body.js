'use strict';
// POST a create-user JSON body (spec 2.1 CreateUserRequest shape) through each
// framework's standard JSON body parser — fw: json() from fw/middleware;
// Fastify: its built-in parser; Express: express.json() — and answer 200 (run.js checks for 200).
const BODY = JSON.stringify({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0958',
  address: { street: '12 St James Square', city: 'London', state: 'Greater London', zipCode: 'SW1Y 4JH', country: 'UK' },
  roles: ['admin', 'mathematician', 'programmer'],
});

function created(body) {
  return { id: 'u-1', name: body.name, email: body.email, roles: body.roles, createdAt: '2026-01-01T00:00:00.000Z' };
}

module.exports = {
  name: 'POST JSON body via json()',
  request: { method: 'POST', path: '/users', body: BODY, headers: { 'content-type': 'application/json' } },
  fw(app) {
    const { json } = require('fw/middleware');
    app.post('/users', json(), (req, res) => res.json(created(req.body)));
  },
  fastify(app) {
    app.post('/users', async (req) => created(req.body));
  },
  express(app, express) {
    app.post('/users', express.json(), (req, res) => res.json(created(req.body)));
  },
  node() {
    return (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        let body;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          res.statusCode = 400;
          res.end();
          return;
        }
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(created(body)));
      });
    };
  },
};
