import {
  NAMED_MAX,
  NAMED_TEXT_MAX,
  PreparedStatements,
  USES_BEFORE_NAMING,
} from './prepared-statements';

const SELECT = 'select id, amount from charges where id = $1';

/** The name `text` is given each of `times` times it is sent. */
const sent = (prepared: PreparedStatements, text: string, times: number) =>
  Array.from({ length: times }, () => prepared.nameFor(text));

describe('PreparedStatements', () => {
  it('names a text once it has been sent USES_BEFORE_NAMING times, and keeps that name', () => {
    const prepared = new PreparedStatements();
    const names = sent(prepared, SELECT, USES_BEFORE_NAMING + 2);
    expect(names.slice(0, USES_BEFORE_NAMING - 1)).toEqual(
      Array.from({ length: USES_BEFORE_NAMING - 1 }, () => undefined),
    );
    const [name] = names.slice(USES_BEFORE_NAMING - 1);
    expect(name).toMatch(/^pgw_\d+_\d+$/);
    expect(new Set(names.slice(USES_BEFORE_NAMING - 1))).toEqual(new Set([name]));
  });

  it('gives each text its own name', () => {
    const prepared = new PreparedStatements();
    const other = 'select id from charges where tenant_id = $1';
    const a = sent(prepared, SELECT, USES_BEFORE_NAMING).at(-1);
    const b = sent(prepared, other, USES_BEFORE_NAMING).at(-1);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a).not.toBe(b);
  });

  it('never names a statement whose result is a whole row', () => {
    const prepared = new PreparedStatements();
    for (const text of [
      'select * from charges where id = $1',
      'insert into charges (id) values ($1) returning *',
      'select c.* from charges c where c.id = $1',
      'UPDATE charges SET status = $1 RETURNING *',
    ])
      expect(sent(prepared, text, USES_BEFORE_NAMING + 1)).toEqual(
        Array.from({ length: USES_BEFORE_NAMING + 1 }, () => undefined),
      );
    // count(*) is one integer, whatever the table's columns.
    expect(sent(prepared, 'select count(*) from charges', USES_BEFORE_NAMING).at(-1)).toBeDefined();
  });

  it('names at most NAMED_MAX texts: the first to qualify', () => {
    const prepared = new PreparedStatements();
    const text = (i: number) => `select id from charges limit ${i}`;
    for (let i = 0; i < NAMED_MAX; i += 1) sent(prepared, text(i), USES_BEFORE_NAMING);
    expect(sent(prepared, text(NAMED_MAX), USES_BEFORE_NAMING + 1).at(-1)).toBeUndefined();
    expect(prepared.nameFor(text(0))).toBe('pgw_0_0');
  });

  it('names texts of at most NAMED_TEXT_MAX characters in all', () => {
    const prepared = new PreparedStatements();
    const long = (i: number) =>
      `select id from charges where id = $1 /* ${i} */ ${' '.repeat(10_000)}`;
    const named = Array.from(
      { length: 10 },
      (_, i) => sent(prepared, long(i), USES_BEFORE_NAMING).at(-1) !== undefined,
    );
    const fit = Math.floor(NAMED_TEXT_MAX / long(0).length);
    expect(named).toEqual(Array.from({ length: 10 }, (_, i) => i < fit));
    // A short text still fits in what is left.
    expect(sent(prepared, SELECT, USES_BEFORE_NAMING).at(-1)).toBeDefined();
  });

  it('drops every name after a prepared plan whose result type changed, and names the texts anew', () => {
    const prepared = new PreparedStatements();
    const before = sent(prepared, SELECT, USES_BEFORE_NAMING).at(-1);
    prepared.failed(Object.assign(new Error('syntax'), { code: '42601' }));
    expect(prepared.nameFor(SELECT)).toBe(before);
    prepared.failed(
      Object.assign(new Error('cached plan must not change result type'), { code: '0A000' }),
    );
    const after = sent(prepared, SELECT, USES_BEFORE_NAMING);
    expect(after.slice(0, -1)).toEqual(
      Array.from({ length: USES_BEFORE_NAMING - 1 }, () => undefined),
    );
    expect(after.at(-1)).toMatch(/^pgw_1_/);
  });
});
