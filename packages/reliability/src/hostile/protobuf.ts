/**
 * A few lines of protobuf wire format, to write lf.a2a.v1 requests by hand
 * (right, wrong or broken) without the generated code. Field numbers are
 * the proto's (reference/a2a-v1.proto).
 */

/** A base-128 varint (negative numbers as 10-byte two's complement, like int32 on the wire). */
export function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v > 127n) {
    out.push(Number(v & 127n) | 128);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

/** A field tag: number and wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32; 3, 4, 6, 7 are groups and invalid). */
export const tag = (field: number, wireType: number): Buffer => varint((field << 3) | wireType);

/** A length-delimited field (string, bytes, nested message). */
export function bytesField(field: number, payload: Buffer | string): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([tag(field, 2), varint(bytes.length), bytes]);
}

/** A varint field (int32, bool, enum). */
export const varintField = (field: number, value: number | bigint): Buffer => Buffer.concat([tag(field, 0), varint(value)]);

/** Concatenates fields into a message. */
export const message = (...fields: Buffer[]): Buffer => Buffer.concat(fields);

/** `google.protobuf.Value` nested `levels` deep (list values in struct values), with a string at the bottom. */
export function nestedValue(levels: number): Buffer {
  let value = bytesField(3, 'bottom');
  for (let i = 0; i < levels; i++) {
    value =
      i % 2 === 0
        ? bytesField(6, bytesField(1, value)) // list_value { values: [value] }
        : bytesField(5, bytesField(1, message(bytesField(1, 'k'), bytesField(2, value)))); // struct_value { fields: { k: value } }
  }
  return value;
}

/** A `google.protobuf.Struct` `{ x: <value nested levels deep> }`. */
export const nestedStruct = (levels: number): Buffer => bytesField(1, message(bytesField(1, 'x'), bytesField(2, nestedValue(levels))));

/** An lf.a2a.v1 `Message` from the user (role 1) with one text part, plus `extra` fields. */
export function userMessage(text: string, ...extra: Buffer[]): Buffer {
  return message(bytesField(1, `m-${crypto.randomUUID()}`), varintField(4, 1), bytesField(5, bytesField(1, text)), ...extra);
}

/** The fields of a message, shallowly: length-delimited values as bytes, varints as bigints (other wire types stop the read). */
export function readFields(bytes: Buffer): Array<{ field: number; value: Buffer | bigint }> {
  const out: Array<{ field: number; value: Buffer | bigint }> = [];
  let at = 0;
  const readVarint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; at < bytes.length; shift += 7n) {
      const byte = bytes[at++]!;
      result |= BigInt(byte & 127) << shift;
      if (byte < 128) return result;
    }
    throw new RangeError('truncated varint');
  };
  while (at < bytes.length) {
    const key = Number(readVarint());
    const wireType = key & 7;
    if (wireType === 0) out.push({ field: key >> 3, value: readVarint() });
    else if (wireType === 2) {
      const length = Number(readVarint());
      out.push({ field: key >> 3, value: bytes.subarray(at, at + length) });
      at += length;
    } else break;
  }
  return out;
}

/** The `google.rpc.ErrorInfo` reason inside a `grpc-status-details-bin` value (a `google.rpc.Status`), if there is one. */
export function errorInfoReason(statusDetails: Buffer): string | undefined {
  for (const detail of readFields(statusDetails)) {
    if (detail.field !== 3 || typeof detail.value === 'bigint') continue;
    const any = readFields(detail.value);
    const type = any.find((f) => f.field === 1)?.value;
    const value = any.find((f) => f.field === 2)?.value;
    if (!(type instanceof Buffer) || !type.toString().endsWith('google.rpc.ErrorInfo') || !(value instanceof Buffer)) continue;
    const reason = readFields(value).find((f) => f.field === 1)?.value;
    return reason instanceof Buffer ? reason.toString('utf8') : undefined;
  }
  return undefined;
}
