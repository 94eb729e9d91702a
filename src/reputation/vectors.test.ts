import { describe, expect, it } from 'vitest';
import { loadReputationVectors, vectorToFacts } from '../../test/helpers/reputation-vectors.ts';
import { deriveEvidence } from './evidence.ts';
import { BASE_SCORE, scoreReputation } from './score.ts';

const { now, vectors } = loadReputationVectors();

describe('reputation vectors (test/vectors/reputation-vectors.json)', () => {
  it('holds at least 70 uniquely named vectors, one /24 or IPv6 prefix each', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(70);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
    expect(new Set(vectors.map((v) => v.input.ip)).size).toBe(vectors.length);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const result = scoreReputation(deriveEvidence(vectorToFacts(v.input, now)), now);
    expect(result.factors.map((f) => ({ name: f.name, impact: f.impact }))).toEqual(v.expected.factors);
    expect(result.score).toBe(v.expected.score);
    expect(result.level).toBe(v.expected.level);
    const raw = BASE_SCORE + result.factors.reduce((s, f) => s + f.impact, 0);
    expect(Math.min(100, Math.max(0, raw))).toBe(result.score);
    for (const f of result.factors) expect(f.detail.length).toBeGreaterThan(0);
  });
});
