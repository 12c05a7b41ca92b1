/**
 * What a failed model call says in a run's error: the seat, the model and the provider's message; when an
 * endpoint rejected a request parameter (HTTP 400 naming `temperature`, `max_tokens`…, as reasoning models
 * do), the parameter and the models-file field that leaves it out.
 */
import type { CompletionResult } from '../../../lib/llm/provider';

const PARAMETERS: ReadonlyArray<[parameter: string, fix: string]> = [
  ['max_completion_tokens', 'max_tokens_param: max_tokens (or none)'],
  ['max_tokens', 'max_tokens_param: max_completion_tokens (or none)'],
  ['temperature', 'takes_temperature: false'],
  ['reasoning_effort', 'leave out reasoning_effort'],
  ['seed', 'an endpoint that takes seed'],
];

/** The parameter a 400 reply names, with the models-file fix; null when it names none. */
export function refusedParameter(result: Pick<CompletionResult, 'error'>): { parameter: string; fix: string } | null {
  const e = result.error;
  if (!e || e.status !== 400) return null;
  const found = PARAMETERS.find(([p]) => new RegExp(`(^|[^a-z_])${p}($|[^a-z_])`, 'i').test(e.message));
  return found ? { parameter: found[0], fix: found[1] } : null;
}

/** The error text for a call an endpoint refused for a parameter, or null (then the caller's own wording stands). */
export function refusedParameterText(seat: string, model: string, result: Pick<CompletionResult, 'error'>): string | null {
  const refused = refusedParameter(result);
  return refused ? `${seat} ${model}: the endpoint refused the parameter "${refused.parameter}" (${result.error!.message}); in the --models file set ${refused.fix} for "${model}"` : null;
}
