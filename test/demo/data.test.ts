// The demo's own definition: its facilities' zones differ on every day of the year, so a time
// shown in the wrong zone is visible in the demo at any season.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DEMO_FACILITIES } from '../../src/demo/data.ts';

/** The zone's UTC offset at that instant as Intl says it ("GMT-05:00"; "GMT" for UTC itself). */
function offsetOf(timeZone: string): (at: Date) => string {
  const format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
  return (at) => format.formatToParts(at).find((part) => part.type === 'timeZoneName')!.value;
}

it('gives the demo facilities zones whose UTC offsets differ at every hour of this year and the next', () => {
  assert.ok(DEMO_FACILITIES.length >= 2);
  const zones = DEMO_FACILITIES.map((f) => ({ name: f.name, timeZone: f.timeZone, offset: offsetOf(f.timeZone) }));
  // Every hour: a daylight-saving change happens at a local hour, so days at noon UTC could miss
  // the hours in which one zone has changed and the other not yet.
  const from = Date.UTC(new Date().getUTCFullYear(), 0, 1);
  const to = Date.UTC(new Date().getUTCFullYear() + 2, 0, 1);
  const seen = new Set<string>();
  for (let ms = from; ms < to; ms += 3_600_000) {
    const at = new Date(ms);
    const offsets = zones.map((z) => z.offset(at));
    for (const o of offsets) seen.add(o);
    for (let i = 0; i < zones.length; i++)
      for (let j = i + 1; j < zones.length; j++)
        assert.notEqual(
          offsets[i],
          offsets[j],
          `${zones[i]!.name} (${zones[i]!.timeZone}) and ${zones[j]!.name} (${zones[j]!.timeZone}) are both ${offsets[i]} at ${at.toISOString()}`,
        );
  }
  // The check read real offsets: the daylight-saving zones show two each over a year.
  assert.ok(seen.size >= zones.length + 1, [...seen].join(' '));
});

it('names each demo facility, guid and unit prefix once', () => {
  for (const key of ['name', 'guid', 'unitPrefix', 'timeZone'] as const)
    assert.equal(new Set(DEMO_FACILITIES.map((f) => f[key])).size, DEMO_FACILITIES.length, key);
});
