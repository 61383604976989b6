// The typed SSE stream of a Responses API reply, event for event as OpenAI sends it and as the
// official SDK assembles it: `event: <type>` then `data: {"type":"<type>","sequence_number":n,...}`.
import { fragments } from './fake-replies.js';
import { outputText, type PlannedItem, type ResponsePlan, renderItem, responseObject } from './fake-responses.js';

const ARGUMENT_FRAGMENT_CHARS = 12;
const SUMMARY_FRAGMENT_CHARS = 24;

/** Every SSE frame of the stream, in order; with `sseError`, an `error` event replaces the terminal one. */
export function responseEvents(plan: ResponsePlan, sseError: unknown): string[] {
  const frames: string[] = [];
  const emit = (type: string, data: object): void => {
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: frames.length, ...data })}\n\n`);
  };
  emit('response.created', { response: responseObject(plan, false) });
  emit('response.in_progress', { response: responseObject(plan, false) });
  plan.items.forEach((item, index) => {
    emit('response.output_item.added', { output_index: index, item: openingOf(item) });
    itemEvents(item, index, emit);
    emit('response.output_item.done', { output_index: index, item: renderItem(item, plan) });
  });
  // As OpenAI sends a failure after the stream started: the error object nested under `error`,
  // which is also what makes the SDK raise it.
  if (sseError !== undefined) emit('error', { error: sseError });
  else emit(plan.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: responseObject(plan, true) });
  return frames;
}

/** The item as `response.output_item.added` announces it: nothing generated yet. */
function openingOf(item: PlannedItem): object {
  switch (item.type) {
    case 'reasoning':
      return { id: item.id, type: 'reasoning', summary: [] };
    case 'message':
      return { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' };
    case 'function_call':
      return { id: item.id, type: 'function_call', status: 'in_progress', arguments: '', call_id: item.callId, name: item.name };
  }
}

function itemEvents(item: PlannedItem, outputIndex: number, emit: (type: string, data: object) => void): void {
  const at = { item_id: item.id, output_index: outputIndex };
  switch (item.type) {
    case 'reasoning':
      item.summary.forEach((text, summaryIndex) => {
        const part = { ...at, summary_index: summaryIndex };
        emit('response.reasoning_summary_part.added', { ...part, part: { type: 'summary_text', text: '' } });
        for (const delta of fragments(text, SUMMARY_FRAGMENT_CHARS)) emit('response.reasoning_summary_text.delta', { ...part, delta });
        emit('response.reasoning_summary_text.done', { ...part, text });
        emit('response.reasoning_summary_part.done', { ...part, part: { type: 'summary_text', text } });
      });
      return;
    case 'message': {
      const part = { ...at, content_index: 0 };
      emit('response.content_part.added', { ...part, part: outputText('') });
      for (const delta of item.chunks) emit('response.output_text.delta', { ...part, delta, logprobs: [] });
      emit('response.output_text.done', { ...part, text: item.text, logprobs: [] });
      emit('response.content_part.done', { ...part, part: outputText(item.text) });
      return;
    }
    case 'function_call':
      for (const delta of fragments(item.arguments, ARGUMENT_FRAGMENT_CHARS)) emit('response.function_call_arguments.delta', { ...at, delta });
      emit('response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments });
      return;
  }
}
