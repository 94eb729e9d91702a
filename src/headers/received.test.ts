import { describe, expect, it } from 'vitest';
import { parseReceived } from './received.ts';

function hop(value: string) {
  const h = parseReceived(value);
  return {
    fromHost: h.fromHost,
    fromIp: h.fromIp?.address ?? null,
    byHost: h.byHost,
    protocol: h.protocol,
    time: h.time === null ? null : new Date(h.time).toISOString(),
  };
}

describe('parseReceived: server styles', () => {
  it('Postfix with TLS', () => {
    expect(
      hop(
        'from mail.example.org (mail.example.org [198.51.100.7]) (using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 ' +
          '(256/256 bits)) by mx.example.net (Postfix) with ESMTPS id 4ABC for <a@example.net>; Tue, 2 Jan 2024 10:00:00 +0100 (CET)',
      ),
    ).toEqual({
      fromHost: 'mail.example.org',
      fromIp: '198.51.100.7',
      byHost: 'mx.example.net',
      protocol: 'ESMTPS',
      time: '2024-01-02T09:00:00.000Z',
    });
  });

  it('Exim with port and helo=, esmtpa maps to ESMTP', () => {
    const h = parseReceived(
      'from host86.example.com ([86.187.174.57]:45321 helo=User) by relay.example.com with esmtpa (Exim 4.87) ' +
        '(envelope-from <a@example.com>) id 1bakrE-000291-LF; Fri, 19 Aug 2016 20:34:52 +0600',
    );
    expect(h.fromIp?.address).toBe('86.187.174.57');
    expect(h.helo).toBe('User');
    expect(h.protocol).toBe('ESMTP');
    expect(h.protocolRaw).toBe('esmtpa');
  });

  it('Exchange with IPv6 in parentheses and TLS version', () => {
    const h = parseReceived(
      'from DM3NAM03FT035.eop-NAM03.prod.protection.outlook.com (2a01:111:f400:7e49::205) by ' +
        'CY4PR0601CA0051.outlook.office365.com (2603:10b6:910:89::28) with Microsoft SMTP Server ' +
        '(version=TLS1_2, cipher=TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384) id 15.20.1185.23 via Frontend Transport; ' +
        'Mon, 1 Oct 2018 09:49:21 +0000',
    );
    expect(h.fromIp?.address).toBe('2a01:111:f400:7e49::205');
    expect(h.byIp?.address).toBe('2603:10b6:910:89::28');
    expect(h.protocol).toBe('ESMTPS');
    expect(h.protocolRaw).toBe('Microsoft SMTP Server');
  });

  it('Exchange without TLS is ESMTP; HTTPS and mapi are not SMTP', () => {
    expect(
      hop(
        'from a.example (10.1.1.1) by b.example (10.1.1.2) with Microsoft SMTP Server id 14.3.498.0; Mon, 10 Oct 2022 15:11:35 -0500',
      ).protocol,
    ).toBe('ESMTP');
    expect(hop('from a by b with HTTPS id 1; Mon, 1 Oct 2018 09:49:22 +0000').protocol).toBeNull();
    expect(
      hop('from a ([fe80::1]) by a ([fe80::1%9]) with mapi id 15.20; Fri, 25 Sep 2020 17:19:07 +0000').fromIp,
    ).toBe('fe80::1');
  });

  it('Gmail internal hop and SMTPS submission', () => {
    expect(
      hop('by 2002:a17:90a:1234:0:0:0:0 with SMTP id x12csp1; Mon, 26 Oct 2020 05:43:29 -0700 (PDT)'),
    ).toEqual({
      fromHost: null,
      fromIp: null,
      byHost: '2002:a17:90a:1234::',
      protocol: 'SMTP',
      time: '2020-10-26T12:43:29.000Z',
    });
    const sub = hop(
      'from mail-sor-f41.google.com (mail-sor-f41.google.com. [209.85.220.41]) by mx.google.com with SMTPS id p13 ' +
        'for <x@gmail.com> (Google Transport Security); Mon, 26 Oct 2020 05:43:29 -0700 (PDT)',
    );
    expect(sub.fromIp).toBe('209.85.220.41');
    expect(sub.protocol).toBe('ESMTPS');
  });

  it('qmail: HELO in a comment, bare IP in the next one, "unknown" replaced by the HELO name', () => {
    expect(
      hop(
        'from unknown (HELO sgis.com.cn) (218.15.33.11) by smtp.didi.net with SMTP; 8 Mar 2017 05:57:05 -0000',
      ),
    ).toEqual({
      fromHost: 'sgis.com.cn',
      fromIp: '218.15.33.11',
      byHost: 'smtp.didi.net',
      protocol: 'SMTP',
      time: '2017-03-08T05:57:05.000Z',
    });
    const local = parseReceived('(qmail 2160 invoked from network); 24 May 2016 12:30:11 -0000');
    expect(local.recognized).toBe(true);
    expect(local.time).toBe(Date.UTC(2016, 4, 24, 12, 30, 11));
  });

  it('Sendmail local submission and IPv6 literal with the IPv6: tag', () => {
    const h = parseReceived(
      '(from www-data@localhost) by vps.example.net (8.15.2/8.15.2/Submit) id 29AK; Mon, 10 Oct 2022 20:11:32 GMT',
    );
    expect(h.byHost).toBe('vps.example.net');
    expect(h.recognized).toBe(true);
    expect(
      hop(
        'from x.example (unknown [IPv6:2a01:7c8:aab6:26d:5054:ff:fed1:1da2]) by mx1.freebsd.org (Postfix) with ESMTPS id CF; Mon,  6 Jul 2015 09:01:20 +0000 (UTC)',
      ).fromIp,
    ).toBe('2a01:7c8:aab6:26d:5054:ff:fed1:1da2');
  });

  it('bare IP and bracket literal as from host, empty by, literal as second word', () => {
    expect(hop('from 139.88.66.159 by ; Mon, 20 Mar 2017 03:11:54 +0400')).toEqual({
      fromHost: null,
      fromIp: '139.88.66.159',
      byHost: null,
      protocol: null,
      time: '2017-03-19T23:11:54.000Z',
    });
    expect(
      hop(
        'from [129.212.207.5] (account a@b HELO x) by  (Postfix) with esmtpa id 4; Tue, 24 May 2016 13:09:41 +0100',
      ).fromIp,
    ).toBe('129.212.207.5');
    expect(
      hop(
        'from foo [127.0.0.1] by srs3.zonevs.eu (ZoneMTA Forwarder) with ESMTP id 1; Mon, 02 Nov 2020 09:56:57 +0000',
      ).fromIp,
    ).toBe('127.0.0.1');
    expect(hop('from (127.0.0.1) by mail90.example.net id h; Wed, 29 Aug 2018 20:26:47 +0000').fromIp).toBe(
      '127.0.0.1',
    );
  });

  it('private HELO literal with a public connecting IP is recorded', () => {
    const h = parseReceived(
      'from unknown (HELO 192.168.15.15) (189.207.175.29) by smtp.test.net with SMTP; 8 Mar 2017 01:21:00 -0000',
    );
    expect(h.heloIp?.address).toBe('192.168.15.15');
    expect(h.fromIp?.address).toBe('189.207.175.29');
  });

  it('protocol mapping of RFC 3848 names', () => {
    const p = (w: string) =>
      parseReceived(`from a by b with ${w} id 1; Mon, 1 Jan 2024 00:00:00 +0000`).protocol;
    expect([p('SMTP'), p('ESMTP'), p('ESMTPA'), p('ESMTPS'), p('ESMTPSA'), p('LMTP'), p('LMTPS')]).toEqual([
      'SMTP',
      'ESMTP',
      'ESMTP',
      'ESMTPS',
      'ESMTPS',
      'ESMTP',
      'ESMTPS',
    ]);
    expect([p('UTF8SMTP'), p('UTF8SMTPSA'), p('local'), p('FQDP via TCP')]).toEqual([
      'ESMTP',
      'ESMTPS',
      null,
      null,
    ]);
    expect(p('ESMTP/TLS/ECDHE-RSA-AES128-GCM-SHA256')).toBe('ESMTPS');
  });

  it('date after a comment following the semicolon (IBM gateway)', () => {
    expect(
      hop(
        'from a.example (192.155.248.67) by b.example (158.87.18.22) with IBM ESMTP SMTP Gateway: Authorized Use Only! ' +
          'Violators will be prosecuted; (version=TLSv1/SSLv3 cipher=AES128-GCM-SHA256 bits=128/128) Wed, 8 Mar 2017 11:46:17 -0500',
      ).time,
    ).toBe('2017-03-08T16:46:17.000Z');
  });

  it('junk is not recognized and never throws', () => {
    for (const junk of [
      'apparently',
      'or is it',
      '',
      ';;;;',
      '((((((',
      ')))',
      '[[[[',
      'from',
      'by by by',
      '[IPv6:',
      '\u00ff\u00fe',
    ]) {
      const h = parseReceived(junk);
      expect(h.fromIp).toBeNull();
      if (!junk.includes('by') && !junk.includes('from') && !junk.startsWith('('))
        expect(h.recognized).toBe(false);
    }
  });
});
