import type { FileHandle } from 'node:fs/promises';
import { crc32 } from './crc32.js';

/** Bytes before each payload: u32 LE payload length, u32 LE CRC-32 of the payload. */
export const FRAME_HEADER_BYTES = 8;
const READ_CHUNK = 16 * 1024 * 1024;

/** Frames a UTF-8 payload as length + checksum + bytes. */
export function encodeFrame(payload: string): Buffer {
  const length = Buffer.byteLength(payload, 'utf8');
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + length);
  frame.write(payload, FRAME_HEADER_BYTES, 'utf8');
  frame.writeUInt32LE(length, 0);
  frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
  return frame;
}

/** What {@link scanFrames} found: where the valid records end and, if the file goes on, why it stopped. */
export interface ScanResult {
  /** Byte length of the longest prefix made of whole, checksummed records. */
  readonly validLength: number;
  /** Set when bytes follow `validLength`: a torn or corrupt tail. */
  readonly problem?: string;
}

/**
 * Reads framed records from `handle` (a file of `fileSize` bytes) in order,
 * calling `onRecord` with each payload and its offset, in chunks so files
 * larger than memory-friendly buffers work. Stops at the first record that
 * is cut short, has a zero length or fails its checksum.
 */
export async function scanFrames(
  handle: FileHandle,
  fileSize: number,
  onRecord: (payload: string, offset: number) => void,
): Promise<ScanResult> {
  let pos = 0;
  let want = READ_CHUNK;
  while (pos < fileSize) {
    const size = Math.min(want, fileSize - pos);
    const buf = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buf, filled, size - filled, pos + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    let off = 0;
    want = READ_CHUNK;
    while (off < filled) {
      const at = pos + off;
      if (off + FRAME_HEADER_BYTES > filled) {
        if (at + FRAME_HEADER_BYTES > fileSize) return { validLength: at, problem: 'a record header is cut short' };
        break;
      }
      const length = buf.readUInt32LE(off);
      if (length === 0) return { validLength: at, problem: 'a record has length 0 (zero-filled tail)' };
      const end = off + FRAME_HEADER_BYTES + length;
      if (at + FRAME_HEADER_BYTES + length > fileSize) return { validLength: at, problem: 'the last record is cut short' };
      if (end > filled) {
        if (off === 0) want = FRAME_HEADER_BYTES + length;
        break;
      }
      const payload = buf.subarray(off + FRAME_HEADER_BYTES, end);
      if (crc32(payload) !== buf.readUInt32LE(off + 4)) return { validLength: at, problem: 'a record fails its checksum' };
      onRecord(payload.toString('utf8'), at);
      off = end;
    }
    if (filled < size && off === filled) return { validLength: pos + off, problem: 'the file ended while reading' };
    pos += off;
  }
  return { validLength: pos };
}
