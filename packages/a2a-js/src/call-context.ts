import type { User } from '@a2a-js/sdk/server';

/**
 * The fields and methods of a2a-js's `ServerCallContext`, without its class
 * (an executor that tests `instanceof` gets the class through the
 * adapter's `ServerCallContext` option). `state` is made on first read.
 */
export class PlainCallContext {
  readonly requestedVersion = '1.0';
  private activated: string[] | undefined = undefined;
  private stateMap: Map<string, unknown> | undefined = undefined;

  constructor(
    readonly user: User,
    public tenant: string | undefined,
    private requested: string[] | undefined,
  ) {}

  /** Per-call state an executor may keep, as on a2a-js. */
  get state(): Map<string, unknown> {
    return (this.stateMap ??= new Map());
  }

  get requestedExtensions(): string[] | undefined {
    return this.requested;
  }

  get activatedExtensions(): string[] | undefined {
    return this.activated;
  }

  addActivatedExtension(uri: string): void {
    if (!this.activated?.includes(uri)) this.activated = [...(this.activated ?? []), uri];
  }

  setRequestedExtensions(extensions: string[] | undefined): void {
    this.requested = extensions;
  }

  setTenant(value: string): void {
    this.tenant = value;
  }
}
