import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventTypesSource, GENERATED_FILE } from './event-types';

describe('the event types generated from the .avsc files', () => {
  it('are committed as the generator writes them', () => {
    // Proves libs/contracts/src/events.generated.ts is not edited by hand nor stale: run `npm run schemas:types`.
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(eventTypesSource());
  });

  it('turn enums, maps, arrays, unions with null and logical types into what the runtime reads', () => {
    // Proves the mapping on this build's schemas: avsc keeps timestamp-millis and date as numbers.
    const source = eventTypesSource();
    expect(source).toContain("export type KycStatus = 'pending' | 'approved' | 'rejected';");
    expect(source).toContain('  mdr_bps: Record<string, number>;');
    expect(source).toContain('  split: SplitAllocation[];');
    expect(source).toContain('  brand: string | null;');
    const v2 = /export interface ChargePaidV2 \{[^}]*\}/.exec(source)?.[0] ?? '';
    expect(v2).toContain('  charge: ChargeSnapshot;');
    expect(source).toContain('  paid_at: number | null;');
    expect(source).toContain("  'charges.charge-paid.v2': ChargePaidV2;");
  });

  it('refuses two different records under one name rather than declaring one of them', () => {
    // Proves a nested record is declared once only when every file agrees on its fields.
    const dir = mkdtempSync(join(tmpdir(), 'schemas-'));
    try {
      mkdirSync(join(dir, 'demo'));
      const event = (fields: object[]) => ({
        type: 'record',
        name: 'Thing',
        namespace: 'gateway.demo.v1',
        fields: [
          { name: 'envelope', type: 'gateway.common.v1.EventEnvelope' },
          { name: 'part', type: { type: 'record', name: 'Part', fields } },
        ],
      });
      writeFileSync(
        join(dir, 'demo', 'thing.v1.avsc'),
        JSON.stringify(event([{ name: 'a', type: 'string' }])),
      );
      writeFileSync(
        join(dir, 'demo', 'thing.v2.avsc'),
        JSON.stringify(event([{ name: 'a', type: 'long' }])),
      );
      expect(() => eventTypesSource(dir)).toThrow(/a type named Part differs/);
      writeFileSync(
        join(dir, 'demo', 'thing.v2.avsc'),
        JSON.stringify(event([{ name: 'a', type: 'string', doc: 'now documented' }])),
      );
      // v2's record has v1's fields: one interface, named for both.
      const source = eventTypesSource(dir);
      expect(source).toContain("  'demo.thing.v2': ThingV1;");
      expect(source).toContain('The same fields: demo.thing.v2. */\nexport interface ThingV1 {');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
