import * as zlib from 'node:zlib';

type Crc32 = (data: Uint8Array, value?: number) => number;

// node:zlib has crc32 from Node 20.15 / 22.2; older Node 20 releases get the table version.
const native = (zlib as { crc32?: Crc32 }).crc32;

let table: Uint32Array | undefined;

function makeTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/** CRC-32 (IEEE 802.3, as zlib and gzip compute it) of `data`, in JavaScript. */
export function crc32Portable(data: Uint8Array): number {
  const t = (table ??= makeTable());
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = t[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** CRC-32 of `data` (unsigned): node:zlib's native crc32 when present, else {@link crc32Portable}. */
export const crc32: (data: Uint8Array) => number = native ? (data) => native(data) >>> 0 : crc32Portable;
