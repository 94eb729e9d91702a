/**
 * Stage 1 of createApp: the one logger every part of the app writes to, made before anything
 * else, so a part that logs while it is being built (the dataset runtime's sweep of a killed
 * build's temp folder) has somewhere to write. Fastify is handed the same logger and wraps it in a
 * child with its request serializers, so every record keeps the format Fastify's own logger
 * wrote: pino JSON lines on stdout, or through `stream` (the human lines of cli/log-output.ts).
 */
import { type Logger, pino } from 'pino';

/** createApp's `logger` option: off (false or absent), pino at info (true), or a level and a stream. */
export type LoggerSetting = boolean | { level: string; stream?: { write(line: string): void } };

export interface LoggerStage {
  /** What services, workers and listeners write to (silent when logging is off). */
  log: Logger;
  /** The logger Fastify wraps; null when logging is off (Fastify's null logger: no child per request). */
  http: Logger | null;
}

export function createLoggerStage(setting: LoggerSetting | undefined): LoggerStage {
  if (!setting) return { log: pino({ enabled: false }), http: null };
  // The level Fastify gave a logger made from options: the one asked for, else info.
  const level = (setting === true ? '' : setting.level) || 'info';
  const stream = setting === true ? undefined : setting.stream;
  const log = stream ? pino({ level }, stream) : pino({ level });
  return { log, http: log };
}
