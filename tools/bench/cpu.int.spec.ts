import { cpuSnapshot } from './cpu';

describe('CPU per charge by process: the shared servers', () => {
  it('finds the PostgreSQL server among the machine processes', () => {
    // Proves the shared servers are counted: PostgreSQL runs on every machine this bench runs on.
    const snapshot = cpuSnapshot({});
    expect(Object.keys(snapshot)).toContain('postgresql');
    expect(snapshot.postgresql).toBeGreaterThan(0);
  });
});
