/**
 * Arrays that grow by appending, built only when read. A streamed
 * artifact gets one version per chunk; copying its parts into each
 * version would make the n-th chunk cost n. Here a version holds only
 * its own chunk's items and the version it extends; the whole array is
 * built (once, then kept) the first time someone reads it, from the
 * nearest version already built. Reading stays exact: every version's
 * property is a real array with every item, in order.
 */

interface Link {
  /** The property's name. */
  readonly key: string;
  /** The object whose property this one extends (undefined once built). */
  previous: object | undefined;
  /** The items this version adds. */
  readonly extra: readonly unknown[];
  /** The property, built on first read. */
  built: unknown[] | undefined;
}

/** Per object with a lazy property: its link. */
const links = new WeakMap<object, Link>();

function build(owner: object): unknown[] {
  const link = links.get(owner)!;
  if (link.built !== undefined) return link.built;
  const key = link.key;
  const extras: (readonly unknown[])[] = [];
  let node = link;
  let base: readonly unknown[];
  for (;;) {
    extras.push(node.extra);
    const previous = node.previous!;
    const before = links.get(previous);
    if (before === undefined || before.key !== key) {
      base = (previous as Record<string, readonly unknown[]>)[key]!;
      break;
    }
    if (before.built !== undefined) {
      base = before.built;
      break;
    }
    node = before;
  }
  const out = base.slice();
  for (let i = extras.length - 1; i >= 0; i--) for (const item of extras[i]!) out.push(item);
  // A frozen owner was frozen with its items (see `deepFreezeAgainst`): its array is frozen too.
  if (Object.isFrozen(owner)) Object.freeze(out);
  link.built = out;
  link.previous = undefined;
  return out;
}

/**
 * Sets `owner[key]` to `previous[key]` followed by `extra`, built when first
 * read (an enumerable accessor in the place the key already has in
 * `owner`, or added last). `previous[key]` must be an array that does not
 * change. Reads give the same array every time. Returns `owner`.
 */
export function defineAppended<T extends object>(owner: T, key: keyof T & string, previous: T, extra: readonly unknown[]): T {
  links.set(owner, { key, previous, extra, built: undefined });
  Object.defineProperty(owner, key, { get: lazyGetter, enumerable: true, configurable: true });
  return owner;
}

function lazyGetter(this: object): unknown[] {
  return build(this);
}

/**
 * For an object made by {@link defineAppended} whose array is not built
 * yet: the property's name, the items this version appends, and the
 * object it extends (whose property holds the items before them; it may
 * be such an object too). Undefined for any other object, and once the
 * array is built.
 */
export function lazyLink(owner: object): { readonly key: string; readonly extra: readonly unknown[]; readonly previous: object } | undefined {
  const link = links.get(owner);
  if (link === undefined || link.built !== undefined) return undefined;
  return link as { readonly key: string; readonly extra: readonly unknown[]; readonly previous: object };
}

/**
 * Builds the lazy property of each of `owners` that has one (see
 * {@link defineAppended}), once: the chain of versions it was built from
 * is then released. For a holder that keeps a value long after its last
 * append (a store, once the task settled).
 */
export function buildAppended(owners: readonly object[] | undefined): void {
  if (owners === undefined) return;
  for (const owner of owners) if (links.get(owner)?.built === undefined && links.has(owner)) build(owner);
}
