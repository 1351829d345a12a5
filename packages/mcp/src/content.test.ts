import { describe, expect, it } from 'vitest';
import { contentOf, taskResult } from './content.js';
import { progressMessage } from './send-turn.js';
import { sanitizeToolName, skillToolNames } from './tool-names.js';

describe('contentOf', () => {
  it('maps text, images, audio, other bytes, URLs and data parts', () => {
    const { content, structuredContent } = contentOf(
      [
        { text: 'hi' },
        { raw: 'iVBO', mediaType: 'image/png' },
        { raw: 'UklG', mediaType: 'audio/wav' },
        { raw: 'JVBE', mediaType: 'application/pdf', filename: 'report 1.pdf' },
        { url: 'https://files.example/a/b.csv?x=1', mediaType: 'text/csv' },
        { data: { rows: 3 } },
      ],
      'a2a://tasks/t1',
    );
    expect(content).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'image', data: 'iVBO', mimeType: 'image/png' },
      { type: 'audio', data: 'UklG', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'a2a://tasks/t1/files/report%201.pdf', blob: 'JVBE', mimeType: 'application/pdf' } },
      { type: 'resource_link', uri: 'https://files.example/a/b.csv?x=1', name: 'b.csv', mimeType: 'text/csv' },
      { type: 'text', text: '{"rows":3}' },
    ]);
    expect(structuredContent).toEqual({ rows: 3 });
  });

  it('puts several data parts (or one that is not an object) under data', () => {
    expect(contentOf([{ data: [1, 2] }], 'u').structuredContent).toEqual({ data: [[1, 2]] });
    expect(contentOf([{ data: { a: 1 } }, { data: 'b' }], 'u').structuredContent).toEqual({ data: [{ a: 1 }, 'b'] });
    expect(contentOf([{ text: 'x' }], 'u').structuredContent).toBeUndefined();
  });

  it('a task result ends with a line naming the task, its context and state, also in _meta', () => {
    const result = taskResult({ id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } }, 'Answer it.');
    expect(result.content).toEqual([{ type: 'text', text: 'A2A task t1 (context c1): input-required. Answer it.' }]);
    expect(result._meta).toEqual({ taskId: 't1', contextId: 'c1', state: 'input-required' });
    expect(result.isError).toBeUndefined();
  });
});

describe('tool names', () => {
  it('keeps MCP tool-name characters only, within 128', () => {
    expect(sanitizeToolName('weather/forecast v2')).toBe('weather_forecast_v2');
    expect(sanitizeToolName('héllo wörld!')).toBe('h_llo_w_rld');
    expect(sanitizeToolName('***')).toBe('skill');
    expect(sanitizeToolName('a.b-c_d')).toBe('a.b-c_d');
    expect(sanitizeToolName('x'.repeat(200), 'p_')).toHaveLength(128);
  });

  it('makes names unique and keeps clear of the fixed tools', () => {
    const skill = (id: string) => ({ id, name: id, description: '', tags: [] });
    expect(skillToolNames([skill('a b'), skill('a_b'), skill('get_task'), skill('send message')])).toEqual(['a_b', 'a_b_2', 'get_task_2', 'send_message_2']);
    expect(skillToolNames([skill('get_task')], 'x_')).toEqual(['x_get_task_2']);
  });
});

describe('progressMessage', () => {
  it("says the state, the agent's current/total and its text, or the artifact", () => {
    const status = { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const, message: { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text: 'thinking' }] } } };
    expect(progressMessage({ statusUpdate: { ...status, metadata: { progress: { current: 2, total: 5 } } } })).toBe('working 2/5: thinking');
    expect(progressMessage({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED' } } })).toBe('submitted');
    expect(progressMessage({ artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a1', name: 'output', parts: [{ text: 'x' }] } } })).toBe('artifact output');
  });
});
