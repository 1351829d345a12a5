// Bun: Bun.serve with the fetch handler, on 127.0.0.1:$PORT.
import { a2aFetch } from './app.mjs';

const port = Number(process.env.PORT);
const fetch = a2aFetch(`http://127.0.0.1:${port}`);
// idleTimeout 0: a stream may be quiet between events longer than Bun's default 10 s.
Bun.serve({ hostname: '127.0.0.1', port, idleTimeout: 0, fetch });
console.log(`serving on Bun ${Bun.version}`);
