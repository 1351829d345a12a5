// workerd: a module Worker whose fetch is the handler; the agent's base URL
// comes from the BASE_URL text binding. One handler (one store) per isolate.
import { a2aFetch } from './app.mjs';

let fetch;
export default {
  fetch(request, env) {
    fetch ??= a2aFetch(env.BASE_URL);
    return fetch(request);
  },
};
