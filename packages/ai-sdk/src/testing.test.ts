import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { finish, scriptedModel, text, toolCall, userText } from './testing.js';

describe('scriptedModel', () => {
  const script = scriptedModel((prompt) => (userText(prompt) === 'tool' ? [toolCall('t', { a: 1 }), finish('tool-calls')] : [...text('Hel', 'lo'), finish()]));

  it('streams the script to streamText and returns it whole to generateText, with its usage', async () => {
    const streamed = streamText({ model: script, prompt: 'hi' });
    expect(await streamed.text).toBe('Hello');
    const generated = await generateText({ model: script, prompt: 'hi' });
    expect([generated.text, generated.usage.totalTokens]).toEqual(['Hello', 18]);
    const called = await generateText({ model: script, prompt: 'tool' });
    expect(called.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['t', { a: 1 }]]);
  });
});
