/**
 * One UDP socket read through several descriptors: found through /proc, duplicated by the helper
 * process, and a descriptor that is not the socket asked for refused (a number closed and reused).
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptUdpSocket, udpDescriptors } from './shared-udp.ts';

const bound = async (): Promise<dgram.Socket> => {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return socket;
};
const close = (socket: dgram.Socket) => new Promise<void>((resolve) => socket.close(() => resolve()));

describe.skipIf(process.platform !== 'linux')('shared UDP socket', () => {
  const open: dgram.Socket[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map(close));
  });

  it('reads the socket through a duplicate that outlives the original, with the options it was created with', async () => {
    const original = await bound();
    const port = original.address().port;
    const [fd] = udpDescriptors(port);
    expect(fd).toBeTypeOf('number');
    // The caller's lookup answers the sends (the DNS threads' skips the resolver's nextTick).
    const looked: string[] = [];
    const copy = dgram.createSocket({
      type: 'udp4',
      lookup: (address, _family, callback) => {
        looked.push(address);
        callback(null, address, 4);
      },
    });
    await adoptUdpSocket(copy, fd as number, { type: 'udp4', address: '127.0.0.1', port });
    open.push(copy);
    expect(udpDescriptors(port)).toHaveLength(2);
    // The original's close leaves the socket bound: the copy alone receives what is sent to it.
    await close(original);
    expect(udpDescriptors(port)).toHaveLength(1);
    copy.on('message', (m, from) => copy.send(`re: ${m}`, from.port, from.address));
    const client = await bound();
    open.push(client);
    const reply = new Promise<string>((resolve) => client.once('message', (m) => resolve(m.toString())));
    client.send('hello', port, '127.0.0.1');
    expect(await reply).toBe('re: hello');
    expect(looked).toEqual(['127.0.0.1']);
  });

  it('refuses a descriptor that is another socket or no socket, and finds none on a closed port', async () => {
    const wanted = await bound();
    const port = wanted.address().port;
    const other = await bound();
    open.push(other);
    const [otherFd] = udpDescriptors(other.address().port);
    await expect(
      adoptUdpSocket(dgram.createSocket('udp4'), otherFd as number, {
        type: 'udp4',
        address: '127.0.0.1',
        port,
      }),
    ).rejects.toThrow(/not the DNSBL socket/);
    const file = fs.openSync('/proc/self/stat', 'r');
    try {
      const socket = dgram.createSocket('udp4');
      await expect(
        adoptUdpSocket(socket, file, { type: 'udp4', address: '127.0.0.1', port }),
      ).rejects.toThrow(/helper ended/);
    } finally {
      fs.closeSync(file);
    }
    await close(wanted);
    expect(udpDescriptors(port)).toEqual([]);
  });
});
