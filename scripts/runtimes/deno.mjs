// Deno: Deno.serve with the fetch handler, on 127.0.0.1:$PORT.
import { a2aFetch } from './app.mjs';

const port = Number(Deno.env.get('PORT'));
Deno.serve({ hostname: '127.0.0.1', port, onListen: () => console.log(`serving on Deno ${Deno.version.deno}`) }, a2aFetch(`http://127.0.0.1:${port}`));
