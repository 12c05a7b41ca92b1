import type { CountColumn } from '../input/sessionsFile';

/** The interaction-cost definitions the analysis can use as C. */
export const COST_DEFINITIONS = ['weighted', 'user_tokens', 'agent_tokens', 'total_tokens', 'total_turns', 'user_turns'] as const;
export type CostDefinition = (typeof COST_DEFINITIONS)[number];

/**
 * Interaction cost per session:
 *   weighted     = user_tokens + λ · agent_tokens (the paper's C, λ = 0.5 by default)
 *   user_tokens  = user_tokens;  agent_tokens = agent_tokens;  total_tokens = user + agent tokens
 *   total_turns  = user_turns + agent_turns;  user_turns = user_turns
 */
export function interactionCost(definition: CostDefinition, counts: Record<CountColumn, Float64Array>, lambda: number): Float64Array {
  const { user_tokens: ut, agent_tokens: at, user_turns: uturn, agent_turns: aturn } = counts;
  const out = new Float64Array(ut.length);
  for (let i = 0; i < out.length; i++) {
    switch (definition) {
      case 'weighted':
        out[i] = ut[i]! + lambda * at[i]!;
        break;
      case 'user_tokens':
        out[i] = ut[i]!;
        break;
      case 'agent_tokens':
        out[i] = at[i]!;
        break;
      case 'total_tokens':
        out[i] = ut[i]! + at[i]!;
        break;
      case 'total_turns':
        out[i] = uturn[i]! + aturn[i]!;
        break;
      case 'user_turns':
        out[i] = uturn[i]!;
        break;
    }
  }
  return out;
}
