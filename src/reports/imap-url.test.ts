/** NETREP_REPORTS_IMAP_URL's forms, and what is refused (with no password in the message). */
import { describe, expect, it } from 'vitest';
import { folderLevels, parseMailboxUrl } from './imap-url.ts';

describe('parseMailboxUrl', () => {
  it('reads the three TLS forms, default ports and folders', () => {
    expect(parseMailboxUrl('imaps://dmarc%40example.com:s%3Acret%2F@imap.example.com/INBOX')).toEqual({
      host: 'imap.example.com',
      port: 993,
      tls: 'implicit',
      user: 'dmarc@example.com',
      password: 's:cret/',
      folder: ['INBOX'],
      name: 'imaps://dmarc%40example.com@imap.example.com:993/INBOX',
    });
    const starttls = parseMailboxUrl('imap://u:p@127.0.0.1/Reports/DMARC');
    expect([starttls.tls, starttls.port, starttls.folder]).toEqual(['starttls', 143, ['Reports', 'DMARC']]);
    expect(parseMailboxUrl('imap://u:p@[::1]:1143?starttls=required')).toMatchObject({
      host: '::1',
      port: 1143,
      tls: 'starttls',
      folder: ['INBOX'],
      name: 'imap://u@[::1]:1143/INBOX',
    });
    expect(parseMailboxUrl('imap://u:p@localhost/Caf%C3%A9?starttls=off')).toMatchObject({
      tls: 'none',
      folder: ['Café'],
      name: 'imap://u@localhost:143/Café?starttls=off',
    });
  });

  it.each([
    ['', /not a URL/],
    ['imap.example.com', /not a URL/],
    ['https://u:p@example.com/', /scheme must be imaps or imap, not https/],
    ['imaps://example.com/INBOX', /a user and a password are needed/],
    ['imaps://u@example.com/INBOX', /a user and a password are needed/],
    ['imaps://u:p@example.com/INBOX?starttls=off', /starttls applies to imap:\/\/ only/],
    ['imap://u:p@example.com/INBOX?starttls=maybe', /starttls must be off or required/],
    ['imap://u:p@example.com/INBOX?tls=no', /unknown parameter "tls"/],
    ['imaps://u:p@example.com/a%2A', /"a\*" is not a folder name/],
    ['imaps://u:p@example.com/a%0Db', /is not a folder name/],
    ['imaps://u:%E0%A4%A@example.com/', /the password is not valid percent-encoding/],
    ['imaps://u:p@example.com:99999/', /not a URL/],
  ])('refuses %j', (url, why) => {
    expect(() => parseMailboxUrl(url)).toThrow(why);
    try {
      parseMailboxUrl(url);
    } catch (err) {
      expect((err as Error).message).toMatch(/^NETREP_REPORTS_IMAP_URL: /);
    }
  });

  it('splits folder settings on /', () => {
    expect(folderLevels('netrep/processed', 'X')).toEqual(['netrep', 'processed']);
    expect(folderLevels('/a//b/', 'X')).toEqual(['a', 'b']);
    expect(() => folderLevels('//', 'NETREP_REPORTS_IMAP_REJECTED_FOLDER')).toThrow(
      'NETREP_REPORTS_IMAP_REJECTED_FOLDER: a folder name is needed',
    );
  });
});
