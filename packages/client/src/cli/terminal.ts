/**
 * Keeping what an agent sends from driving the terminal: its card, messages,
 * artifacts, file names and error texts are data, printed as text. A
 * hostile agent could otherwise write escape sequences that set the
 * clipboard (OSC 52), erase or forge lines (CSI, CR), or ring the bell.
 */

/**
 * C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F,
 * e.g. U+009B, the one-character CSI); bidi controls (U+061C, U+200E-U+200F,
 * U+202A-U+202E, U+2066-U+2069), which reorder what the reader sees
 * ("Trojan Source"); and zero-width characters (U+200B-U+200D, U+2060,
 * U+FEFF), which hide text inside other text.
 */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g;

/** DEL and the C1 controls: JSON.stringify leaves them raw (it escapes C0 only). */
const RAW_IN_JSON = /[\u007F-\u009F]/g;

/**
 * `text` without control characters (C0 but newline and tab, DEL, C1),
 * bidi controls and zero-width characters: what human output prints. Apply it to anything an agent supplied before
 * it reaches a terminal; every other character is kept as it is.
 */
export function stripControls(text: string): string {
  return text.replace(CONTROLS, '');
}

/**
 * JSON text (as `JSON.stringify` made it) with DEL and C1 characters written
 * as `\u00XX` escapes: the same JSON value, byte for byte once parsed, but
 * nothing a terminal would act on. (These characters can only occur inside
 * string literals, where the escape means the same character.)
 */
export function escapeJsonControls(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Erases the terminal line the cursor is on, for a status line rewritten in place (the CLI's own control, never an agent's). */
export const REWRITE_LINE = '\r\u001b[2K';
