// The example as a user starts it (src/main.ts, a process), reached by the
// MCP SDK's Client through `taskwire mcp <url>` over stdio.
import { describeTravelAgentOverMcp } from '@taskwire/reference-agent/example-kit';

describeTravelAgentOverMcp('the Agents SDK travel agent', {
  root: `${import.meta.dirname}/..`,
  model: 'a stand-in model',
  question: 'bookTrip {"city":"Oslo"}',
});
