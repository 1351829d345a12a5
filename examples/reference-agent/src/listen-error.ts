/** Which command-line option sets the port a server failed to listen on. */
export interface ListenTarget {
  readonly option: '--port' | '--grpc-port';
  readonly host: string;
  readonly port: number;
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  // grpc-js words it "No address added out of total 1 resolved errors: [listen EADDRINUSE: ...]".
  return /\b(EADDRINUSE|EACCES|EADDRNOTAVAIL)\b/.exec(error instanceof Error ? error.message : '')?.[1];
};

/**
 * Says why a server could not listen in terms of the command line: a port
 * that is taken or not allowed names the port, the address and the option
 * that changes it. Other errors come back as they are.
 */
export function explainListenError(error: unknown, target: ListenTarget): unknown {
  const { option, host, port } = target;
  const pick = `pick another port with ${option} <n> (${option} 0 picks a free one)`;
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new Error(`port ${port} on ${host} is already in use (another program, or another reference agent, listens there): stop it, or ${pick}`, { cause: error });
    case 'EACCES':
      return new Error(`this user may not listen on port ${port} on ${host}: ${pick}`, { cause: error });
    case 'EADDRNOTAVAIL':
      return new Error(`${host} is not an address of this machine: pick another with --host (port ${port}, ${option})`, { cause: error });
    default:
      return error;
  }
}
