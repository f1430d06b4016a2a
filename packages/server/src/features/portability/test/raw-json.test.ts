// The texts of a top-level array's elements, as restore reads the history's row images (exact numbers).
import { describe, expect, it } from 'vitest';
import { topLevelArrayTexts } from '../raw-json.js';

describe('topLevelArrayTexts', () => {
  it('gives each element as written, numbers and strings untouched', () => {
    const text = `{"a": [1], "s": "change_rows: [", "change_rows": [
{"k": {"x": [1, 2]}, "v": 12.50, "t": "a \\" ] , } [ b"},
 {"v": 123456789012.123456789} ,null
], "end": {"change_rows": [9]}}`;
    expect(JSON.parse(text).change_rows).toHaveLength(3);
    expect(topLevelArrayTexts(text, 'change_rows')).toEqual([
      '{"k": {"x": [1, 2]}, "v": 12.50, "t": "a \\" ] , } [ b"}',
      '{"v": 123456789012.123456789}',
      'null',
    ]);
  });

  it('reads the last of a repeated key (as JSON.parse), an empty array, and no key', () => {
    expect(topLevelArrayTexts('{"r": [1], "r": [2, 3]}', 'r')).toEqual(['2', '3']);
    expect(topLevelArrayTexts('{"r": [ ]}', 'r')).toEqual([]);
    expect(topLevelArrayTexts('{"x": {"r": [1]}}', 'r')).toBeUndefined();
  });
});
