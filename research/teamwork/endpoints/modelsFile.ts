/**
 * The models file of a teamwork run (`--models models.yaml`): where each model the run names is served
 * and which request parameters it takes, so the subject, the judges and the partners can sit on
 * different endpoints, reasoning models included:
 *
 *   models:
 *     gpt-5-mini:                      # the name used on the command line (and recorded)
 *       base_url: https://api.openai.com/v1
 *       api_key_env: OPENAI_API_KEY    # omit for a local server that needs no key
 *       model: gpt-5-mini-2025-08-07   # the name sent to the endpoint (default: the key above)
 *       takes_temperature: false       # reasoning models refuse `temperature`
 *       max_tokens_param: max_completion_tokens   # max_tokens (default) | max_completion_tokens | none
 *       reasoning_effort: low          # minimal | low | medium | high (sent only when given)
 *
 * Keys are never in the file, only the name of the environment variable holding one. The file's sha256
 * goes into every run's settings (`models_file_hash`). Problems stop with `file:line: field: message`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { validateYaml } from '../../../common/yamlSource';

const ModelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, 'must be a model name (letters, digits, . _ : / @ -)');

export const ModelEndpoint = z
  .object({
    base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.openai.com/v1' }),
    api_key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name (A–Z, 0–9, _)').optional(),
    model: ModelName.optional(),
    takes_temperature: z.boolean().default(true),
    max_tokens_param: z.enum(['max_tokens', 'max_completion_tokens', 'none']).default('max_tokens'),
    reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
  })
  .strict();
export type ModelEndpoint = z.infer<typeof ModelEndpoint>;

export const ModelsFileSchema = z
  .object({ models: z.record(ModelName, ModelEndpoint).refine((m) => Object.keys(m).length > 0, 'lists no model') })
  .strict();

export interface ModelsFile {
  path: string;
  /** sha256 of the file's text. */
  hash: string;
  models: Record<string, ModelEndpoint>;
}

export class ModelsFileError extends Error {}

export function parseModelsFile(text: string, path: string): ModelsFile {
  const result = validateYaml(text, ModelsFileSchema);
  if (!result.ok) {
    throw new ModelsFileError(
      `invalid models file:\n${result.problems.map((p) => `  ${path}${p.line ? `:${p.line}` : ''}: ${p.path.length ? `${p.path.map(String).join('.')}: ` : ''}${p.message}`).join('\n')}`,
    );
  }
  return { path, hash: createHash('sha256').update(text).digest('hex'), models: result.data.models };
}

export function loadModelsFile(path: string): ModelsFile {
  if (!existsSync(path)) throw new ModelsFileError(`--models: ${path} does not exist`);
  return parseModelsFile(readFileSync(path, 'utf8'), path);
}
