/** The platforms the quote flow offers, keyed by what the user may answer. */
export const QUOTES: Readonly<Record<string, string>> = {
  insta: 'Chasing sunsets and dreams, one golden hour at a time. 🌅✨',
  pinterest: 'Pin this moment: the sky blushes, the sea listens, and the day lets go softly.',
  general: 'Every sunset is proof that endings can be beautiful too.',
};

/** The question the agent asks when it needs the platform. */
export const PLATFORM_QUESTION = 'Do you want Instagram, Pinterest, or General?';

/** Maps a user's answer to a platform key, or undefined when it names none. */
export function platformOf(answer: string): string | undefined {
  const text = answer.trim().toLowerCase();
  if (text.startsWith('insta')) return 'insta';
  if (text.startsWith('pin')) return 'pinterest';
  if (text.startsWith('gen')) return 'general';
  return undefined;
}

/** A strictly shorter version of `quote`: its first half, word-wise, ending with an ellipsis. */
export function shorten(quote: string): string {
  const words = quote.split(/\s+/).filter(Boolean);
  if (words.length <= 1) return quote.slice(0, Math.max(1, Math.floor(quote.length / 2)));
  return `${words.slice(0, Math.ceil(words.length / 2)).join(' ')}…`;
}
