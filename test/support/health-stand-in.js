// A stand-in for a service of the local runtime in tests of scripts/services.sh: it answers
// GET /health with 200 on PORT, as every service does, and nothing else.
import http from 'node:http';

const server = http.createServer((request, response) => {
  response.writeHead(request.url === '/health' ? 200 : 404).end();
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
