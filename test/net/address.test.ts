// The SSRF address rules, without a network.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkUrl, hostAllowed, isIpLiteral, isPublicAddress } from '../../src/net/address.ts';

describe('isPublicAddress', () => {
  it('accepts public unicast addresses, IPv4 and IPv6', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '[2a00:1450:4001:81c::200e]',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  it('refuses loopback, private, link-local, metadata, CGNAT, multicast, reserved and embedded-IPv4 forms', () => {
    const refused = [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254', // cloud metadata
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1', // the same, in hex
      '::ffff:a9fe:a9fe', // 169.254.169.254 mapped
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '2002:7f00:1::1', // 6to4 of 127.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '2001:db8::1', // documentation
      '[::1]',
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  });

  it('refuses IPv4-compatible addresses (::/96) in every spelling, whatever IPv4 they embed', () => {
    for (const address of [
      '::127.0.0.1',
      '[::127.0.0.1]',
      '::7f00:1',
      '0:0:0:0:0:0:127.0.0.1',
      '::10.0.0.1',
      '::a9fe:a9fe',
      '::192.168.1.1',
      '::0.0.0.2',
      '::8.8.8.8',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('refuses, whole, the ranges that carry an IPv4 address inside IPv6 (private ones first of all)', () => {
    const refused = [
      '64:ff9b::10.0.0.1', // NAT64 (RFC 6052) of a private address
      '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
      '64:ff9b::192.168.1.1',
      '64:ff9b::8.8.8.8', // NAT64 of a public one: refused too, an image host has a native address
      '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
      '::ffff:0:7f00:1', // IPv4-translated (RFC 6145)
      '::ffff:0:10.0.0.1',
      '2002:a00:1::1', // 6to4 of 10.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254
      '2002:808:808::1', // 6to4 of 8.8.8.8
      '2001:0:a00:1::1', // Teredo through a private server
      '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo of client 127.0.0.1 (stored inverted)
      '2001:0:4136:e378:8000:63bf:f5ff:fffe', // … of client 10.0.0.1
    ];
    for (const address of refused) assert.equal(isPublicAddress(address), false, address);
  });

  it('refuses text that is not a canonical address (decimal, hex, octal, names, garbage)', () => {
    for (const text of [
      '2130706433',
      '0x7f000001',
      '0177.0.0.1',
      '127.1',
      'localhost',
      'example.com',
      '',
      '1.2.3.4.5',
      '::gg',
    ]) {
      assert.equal(isPublicAddress(text), false, text);
    }
    assert.equal(isIpLiteral('2130706433'), false);
    assert.equal(isIpLiteral('[::1]'), true);
  });
});

describe('checkUrl', () => {
  it('accepts http and https URLs to names and public addresses', () => {
    for (const url of [
      'https://pms.example/img/u1001-1.jpg',
      'http://93.184.216.34/a.png',
      'https://[2606:4700:4700::1111]/x.gif',
    ]) {
      assert.equal(checkUrl(url, []).ok, true, url);
    }
  });

  it('refuses other schemes, credentials, relative URLs and private literals (in every spelling)', () => {
    const cases: [string, string][] = [
      ['file:///etc/passwd', 'SCHEME_NOT_ALLOWED'],
      ['ftp://pms.example/a.jpg', 'SCHEME_NOT_ALLOWED'],
      ['gopher://pms.example/', 'SCHEME_NOT_ALLOWED'],
      ['data:image/png;base64,AAAA', 'SCHEME_NOT_ALLOWED'],
      ['javascript:alert(1)', 'SCHEME_NOT_ALLOWED'],
      ['/img/a.jpg', 'INVALID_URL'],
      ['not a url', 'INVALID_URL'],
      ['https://user:pw@pms.example/a.jpg', 'CREDENTIALS_NOT_ALLOWED'],
      ['http://127.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
      ['http://169.254.169.254/latest/meta-data/', 'ADDRESS_NOT_ALLOWED'],
      ['http://[::ffff:7f00:1]/', 'ADDRESS_NOT_ALLOWED'],
      ['http://2130706433/', 'ADDRESS_NOT_ALLOWED'], // the URL parser makes it 127.0.0.1
      ['http://0x7f.1/', 'ADDRESS_NOT_ALLOWED'],
      ['http://0177.0.0.1/', 'ADDRESS_NOT_ALLOWED'],
      ['http://[::1]:8080/', 'ADDRESS_NOT_ALLOWED'],
      ['http://[::127.0.0.1]/', 'ADDRESS_NOT_ALLOWED'], // the URL parser makes it [::7f00:1]
      ['http://[::169.254.169.254]/latest/meta-data/', 'ADDRESS_NOT_ALLOWED'],
      ['http://[64:ff9b::127.0.0.1]/', 'ADDRESS_NOT_ALLOWED'],
      ['http://[2002:7f00:1::1]/', 'ADDRESS_NOT_ALLOWED'],
      ['http://10.1.2.3/a.jpg', 'ADDRESS_NOT_ALLOWED'],
    ];
    for (const [url, refusal] of cases) {
      const result = checkUrl(url, []);
      assert.equal(result.ok, false, url);
      assert.equal(!result.ok && result.refusal, refusal, url);
    }
  });

  it('lets allow-listed hosts through, by host or by host:port only', () => {
    assert.equal(checkUrl('http://127.0.0.1:4567/a.jpg', ['127.0.0.1:4567']).ok, true);
    assert.equal(checkUrl('http://127.0.0.1:4568/a.jpg', ['127.0.0.1:4567']).ok, false);
    assert.equal(checkUrl('http://127.0.0.1:9/a.jpg', ['127.0.0.1']).ok, true);
    assert.equal(checkUrl('http://[::1]:8080/a.jpg', ['[::1]:8080']).ok, true);
    assert.equal(hostAllowed(['images.internal'], 'IMAGES.internal', 443), true);
    assert.equal(hostAllowed(['images.internal:8443'], 'images.internal', 443), false);
    assert.equal(hostAllowed([], 'images.internal', 443), false);
  });
});
