// Imported first by main.ts, before @grpc/grpc-js loads and reads its
// verbosity: grpc-js would otherwise print its own error lines (such as "No
// address added out of total 1 resolved" for a port in use) beside the
// agent's explanation of the same error. GRPC_VERBOSITY set by the user wins.
// (The built agent loads grpc-js before any of its own code: scripts/start.mjs
// sets the variable before loading it.)
process.env.GRPC_VERBOSITY ??= 'NONE';
