import { describe, expect, it } from 'vitest';
import { fetchAllPages, clampOffset, compareCells, csvField, filterRows, hiddenColumns, nextSort, sortRows, toCsv } from './table-model';

describe('csvField', () => {
  it('quotes commas, quotes and line breaks, doubling inner quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(' padded ')).toBe('" padded "');
  });

  it('turns text a spreadsheet would run as a formula into text', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tcmd')).toBe("'\tcmd");
  });

  it('leaves numbers as numbers (a negative number is no formula) and empties empty', () => {
    expect(csvField(-3)).toBe('-3');
    expect(csvField(4.5)).toBe('4.5');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(true)).toBe('true');
  });
});

describe('toCsv', () => {
  it('writes a header and one CRLF-ended line per row', () => {
    expect(
      toCsv(
        ['Cluster', 'Note'],
        [
          ['c-1', 'ok'],
          ['c-2', '=cmd'],
        ],
      ),
    ).toBe("Cluster,Note\r\nc-1,ok\r\nc-2,'=cmd\r\n");
  });
});

describe('sorting', () => {
  it('compares numbers by value and text naturally', () => {
    expect(compareCells(2, 10)).toBeLessThan(0);
    expect(compareCells('node-2', 'node-10')).toBeLessThan(0);
    expect(compareCells('Alpha', 'alpha')).toBe(0);
  });

  it('sorts both ways, keeps empty values last and ties in their original order', () => {
    const rows = [
      { n: 'b', v: 2 },
      { n: 'x', v: null },
      { n: 'a', v: 1 },
      { n: 'c', v: 2 },
    ];
    expect(sortRows(rows, (r) => r.v, 'asc').map((r) => r.n)).toEqual(['a', 'b', 'c', 'x']);
    expect(sortRows(rows, (r) => r.v, 'desc').map((r) => r.n)).toEqual(['b', 'c', 'a', 'x']);
    expect(rows.map((r) => r.n)).toEqual(['b', 'x', 'a', 'c']); // input untouched
  });

  it('flips the direction on the same column and starts ascending on another', () => {
    expect(nextSort(null, 'name')).toEqual({ id: 'name', direction: 'asc' });
    expect(nextSort({ id: 'name', direction: 'asc' }, 'name')).toEqual({ id: 'name', direction: 'desc' });
    expect(nextSort({ id: 'name', direction: 'desc' }, 'name')).toEqual({ id: 'name', direction: 'asc' });
    expect(nextSort({ id: 'name', direction: 'desc' }, 'version')).toEqual({ id: 'version', direction: 'asc' });
  });
});

describe('filterRows', () => {
  const rows = [
    { name: 'prod-eu-1', sector: 'Prod' },
    { name: 'dev-us-2', sector: 'Dev' },
  ];
  it('keeps rows containing every word, in any of their values, ignoring case', () => {
    expect(filterRows(rows, 'EU prod', (r) => [r.name, r.sector])).toEqual([rows[0]]);
    expect(filterRows(rows, '  ', (r) => [r.name])).toEqual(rows);
    expect(filterRows(rows, 'us prod', (r) => [r.name, r.sector])).toEqual([]);
  });
});

describe('clampOffset', () => {
  it('snaps to a page start inside the list', () => {
    expect(clampOffset(120, 50, 60)).toBe(50);
    expect(clampOffset(73, 50, 500)).toBe(50);
    expect(clampOffset(100, 50, 0)).toBe(0);
  });
});

describe('hiddenColumns', () => {
  const columns = [{ id: 'name' }, { id: 'region', hidden: true }, { id: 'version' }];
  it('uses the defaults, then what the reader chose, ignoring unknown ids and bad storage', () => {
    expect([...hiddenColumns(columns, null)]).toEqual(['region']);
    expect([...hiddenColumns(columns, '{"region":true,"version":false,"gone":false}')]).toEqual(['version']);
    expect([...hiddenColumns(columns, 'not json')]).toEqual(['region']);
    expect([...hiddenColumns(columns, '["version"]')]).toEqual(['region']);
  });
});

describe('fetchAllPages', () => {
  const all = Array.from({ length: 23 }, (_, i) => i);
  const pages = (offset: number, limit: number) => Promise.resolve({ items: all.slice(offset, offset + limit), total: all.length });

  it('reads page after page until the total', async () => {
    const asked: number[] = [];
    const rows = await fetchAllPages((offset, limit) => (asked.push(offset), pages(offset, limit)), 10);
    expect(rows).toEqual(all);
    expect(asked).toEqual([0, 10, 20]);
  });

  it('stops at a short page and at the row cap', async () => {
    expect(await fetchAllPages((o, l) => Promise.resolve({ items: all.slice(o, o + l), total: 1000 }), 10)).toEqual(all);
    expect(await fetchAllPages(pages, 5, 12)).toEqual(all.slice(0, 12));
  });
});
