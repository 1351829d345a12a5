// The example as a user starts it (src/main.ts, a process), reached by the
// MCP SDK's Client through `taskwire mcp <url>` over stdio.
import { describeTravelAgentOverMcp } from '@taskwire/reference-agent/example-kit';

describeTravelAgentOverMcp('the LangGraph travel agent', {
  root: `${import.meta.dirname}/..`,
  model: "LangChain's fake chat models",
  question: 'Book a trip to Oslo? Answer "approve" or "deny".',
});
