/**
 * The stage-1 logger writes what Fastify's own logger wrote before createApp made the logger
 * first (#32 item 1): the same records, field for field, from the services (the logger itself)
 * and from the HTTP app (Fastify's child of it), at the level asked for.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLoggerStage } from './logger.ts';

function capture(): { lines: string[]; stream: { write(line: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (chunk: string) => lines.push(...chunk.split('\n').filter((l) => l)) } };
}

/** A record without its time (the one field that differs between two writes). */
function record(line: string | undefined): Record<string, unknown> {
  const { time, ...rest } = JSON.parse(line ?? '{}') as Record<string, unknown>;
  expect(typeof time).toBe('number');
  return rest;
}

describe('createLoggerStage', () => {
  it('writes the records a Fastify-made logger wrote, from the services and from Fastify', async () => {
    const before = capture();
    const fastifyMade = Fastify({ logger: { level: 'info', stream: before.stream } });
    const now = capture();
    const stage = createLoggerStage({ level: 'info', stream: now.stream });
    expect(stage.http).toBe(stage.log);
    const app = Fastify({ loggerInstance: stage.http ?? undefined });
    const err = new Error('disk full');
    for (const log of [fastifyMade.log, stage.log, app.log]) {
      log.info({ version: 2 }, 'dataset v2 loaded');
      log.error({ err }, 'feeds: build failed');
      log.debug('not at info');
    }
    expect(before.lines).toHaveLength(2);
    expect(now.lines).toHaveLength(4);
    const expected = before.lines.map(record);
    expect(expected[0]).toEqual({
      level: 30,
      pid: process.pid,
      hostname: expect.any(String),
      version: 2,
      msg: 'dataset v2 loaded',
    });
    expect(expected[1]).toMatchObject({ level: 50, err: { type: 'Error', message: 'disk full' } });
    expect(now.lines.map(record)).toEqual([...expected, ...expected]);
    await Promise.all([fastifyMade.close(), app.close()]);
  });

  it('is silent when logging is off, and Fastify keeps its null logger', () => {
    const stage = createLoggerStage(false);
    expect(stage.http).toBeNull();
    expect(stage.log.isLevelEnabled('fatal')).toBe(false);
    expect(createLoggerStage(undefined).http).toBeNull();
  });

  it('logs at info when asked for with true or an empty level', () => {
    expect(createLoggerStage(true).log.level).toBe('info');
    expect(createLoggerStage({ level: '' }).log.level).toBe('info');
    expect(createLoggerStage({ level: 'warn' }).log.level).toBe('warn');
  });
});
