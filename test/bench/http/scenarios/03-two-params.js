'use strict';
// GET with two path parameters.
module.exports = {
  name: 'GET two params',
  request: { method: 'GET', path: '/users/123/posts/456' },
  fw(app) {
    app.get('/users/:userId/posts/:postId', (req, res) => res.json({ userId: req.params.userId, postId: req.params.postId }));
  },
  fastify(app) {
    app.get('/users/:userId/posts/:postId', async (req) => ({ userId: req.params.userId, postId: req.params.postId }));
  },
  express(app) {
    app.get('/users/:userId/posts/:postId', (req, res) => res.json({ userId: req.params.userId, postId: req.params.postId }));
  },
  node() {
    // What a hand-written server would do: split and compare.
    return (req, res) => {
      const parts = req.url.split('/');
      if (req.method === 'GET' && parts.length === 5 && parts[1] === 'users' && parts[3] === 'posts') {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ userId: parts[2], postId: parts[4] }));
        return;
      }
      res.statusCode = 404;
      res.end();
    };
  },
};
