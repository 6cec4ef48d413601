// npx tsx tools/soak/heap-diff.ts <earlier.heapsnapshot> <later.heapsnapshot> [top]
// What grew between two V8 heap snapshots of one process (`npm run soak -- --heap-snapshots charges`
// takes one at the end of the warm-up and one at the end of the load): objects counted and their own
// sizes summed by type and constructor name, the largest growths first. A leak shows as a constructor
// whose count grows with the number of requests served.
import { readFileSync } from 'node:fs';
import { toolArgs, UsageError } from '../bench/args';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Group {
  count: number;
  bytes: number;
}

export function groups(path: string): Map<string, Group> {
  const s = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = s.snapshot.meta.node_types[0];
  const out = new Map<string, Group>();
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt] as number] ?? '?';
    // Strings and code are grouped by type alone: their "names" are their contents.
    const name =
      type === 'object' || type === 'closure' || type === 'native'
        ? (s.strings[s.nodes[i + nameAt] as number] ?? '?').slice(0, 80)
        : '';
    const key = `${type}:${name}`;
    const g = out.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + sizeAt] as number;
    out.set(key, g);
  }
  return out;
}

function main(): void {
  const [a, b, topArg] = toolArgs(
    'npx tsx tools/soak/heap-diff.ts <earlier.heapsnapshot> <later.heapsnapshot> [top]',
    {},
    ({ positionals }) => {
      if (positionals.length < 2) throw new UsageError('heap-diff.ts needs two heap snapshots');
      return positionals as [string, string, string?];
    },
    { positionals: 3 },
  );
  const before = groups(a);
  const after = groups(b);
  const rows = [...after.entries()].map(([key, g]) => {
    const p = before.get(key) ?? { count: 0, bytes: 0 };
    return {
      key,
      count: g.count,
      dCount: g.count - p.count,
      bytes: g.bytes,
      dBytes: g.bytes - p.bytes,
    };
  });
  const total = (m: Map<string, Group>) => [...m.values()].reduce((s, g) => s + g.bytes, 0);
  process.stdout.write(
    `heap: ${(total(before) / 2 ** 20).toFixed(1)} MB → ${(total(after) / 2 ** 20).toFixed(1)} MB\n`,
  );
  process.stdout.write(
    `${'Δ bytes'.padStart(12)}${'Δ count'.padStart(10)}${'count'.padStart(10)}  type:constructor\n`,
  );
  for (const r of rows.sort((x, y) => y.dBytes - x.dBytes).slice(0, Number(topArg ?? 30))) {
    process.stdout.write(
      `${String(r.dBytes).padStart(12)}${String(r.dCount).padStart(10)}${String(r.count).padStart(10)}  ${r.key}\n`,
    );
  }
}

if (require.main === module) main();
