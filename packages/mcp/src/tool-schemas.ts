// The input schemas of the bridge's tools (zod shapes; the SDK turns them into JSON Schema).
import * as z from 'zod';

/** The input of every message tool (a skill's, or `send_message`). */
export const messageToolShape = {
  message: z.string().describe('The message to the agent (or your answer to its question).'),
  files: z
    .array(
      z.object({
        url: z.string().optional().describe('Where the file is (the agent fetches it).'),
        data: z.string().optional().describe('The file content, base64 (instead of url).'),
        mediaType: z.string().optional().describe('Its media type, e.g. image/png.'),
        name: z.string().optional().describe('Its file name.'),
      }),
    )
    .optional()
    .describe('Files to send along, each by url or as base64 data.'),
  data: z.record(z.string(), z.unknown()).optional().describe('Structured data to send along (a JSON object).'),
  taskId: z.string().optional().describe('Continue this task: answer the question the agent asked (input-required).'),
  contextId: z.string().optional().describe('Stay in this conversation (the contextId of an earlier result).'),
};

/** The input of `get_task`. */
export const getTaskShape = {
  taskId: z.string().describe('The task id (from an earlier result).'),
  historyLength: z.number().int().min(0).optional().describe('How many messages of its history to include.'),
};

/** The states `list_tasks` filters on, as the results name them. */
export const STATE_NAMES = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'] as const;

/** The input of `list_tasks`. */
export const listTasksShape = {
  contextId: z.string().optional().describe('Only tasks of this conversation.'),
  state: z.enum(STATE_NAMES).optional().describe('Only tasks in this state.'),
  pageSize: z.number().int().min(1).max(100).optional().describe('At most this many tasks (1-100).'),
  pageToken: z.string().optional().describe('The nextPageToken of the previous page.'),
};

/** The input of `cancel_task`. */
export const cancelTaskShape = {
  taskId: z.string().describe('The task to cancel.'),
};
