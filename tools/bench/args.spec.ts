import { flags, numberArg, parseToolArgs, UsageError } from './args';

const OPTIONS = flags(['report'], ['short']);

describe('the tools’ command line (node:util parseArgs, strict)', () => {
  it('reads the flags it declares, values and switches, and leaves the others undefined', () => {
    // Proves the flags reach the tool: a value after its flag or with `=`, a switch alone.
    expect(parseToolArgs('x', OPTIONS, ['--report', 'r.json', '--short'])).toEqual({
      values: { report: 'r.json', short: true },
      positionals: [],
    });
    expect(parseToolArgs('x', OPTIONS, ['--report=r.json'])).toEqual({
      values: { report: 'r.json' },
      positionals: [],
    });
  });

  it('refuses an unknown flag, a flag without its value and a stray argument, with the usage', () => {
    // Proves a misspelt flag stops the tool instead of being ignored (the hand-written parsers ignored it).
    expect(() => parseToolArgs('tool [--short]', OPTIONS, ['--shrot'])).toThrow(UsageError);
    expect(() => parseToolArgs('tool [--short]', OPTIONS, ['--shrot'])).toThrow(
      /Unknown option '--shrot'[\s\S]*usage: tool \[--short\]/,
    );
    expect(() => parseToolArgs('x', OPTIONS, ['--report'])).toThrow(/argument missing/);
    expect(() => parseToolArgs('x', OPTIONS, ['extra'])).toThrow(UsageError);
    expect(parseToolArgs('x', OPTIONS, ['a', 'b'], { positionals: 2 })).toEqual({
      values: {},
      positionals: ['a', 'b'],
    });
    expect(() => parseToolArgs('x', OPTIONS, ['a', 'b', 'c'], { positionals: 2 })).toThrow(
      /too many arguments: a b c/,
    );
  });

  it('answers --help with the usage rather than running', () => {
    // Proves `--help` is cheap: the tool prints its usage and does nothing else.
    expect(parseToolArgs('x', OPTIONS, ['--help'])).toBe('help');
  });

  it('reads a number flag, falls back when absent and refuses what is not a number', () => {
    // Proves a bad number is a usage error, not NaN passed on.
    expect(numberArg('runs', undefined, 50)).toBe(50);
    expect(numberArg('runs', '20', 50)).toBe(20);
    expect(() => numberArg('runs', 'ten', 50)).toThrow(/--runs: ten/);
    expect(() => numberArg('rate', '-1', 10, (n) => n > 0)).toThrow(UsageError);
  });
});
