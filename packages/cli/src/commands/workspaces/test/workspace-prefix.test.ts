import { describe, expect, it } from 'vitest';
import { findWorkspace } from '../command.js';

// Issue 41, item 4: `expense use` (and --workspace) take a unique prefix of a workspace id, as `revert` does.
const ws = (workspaceId: string, name: string) => ({
  workspaceId,
  name,
  role: 'owner' as const,
  selected: false,
});
const all = [
  ws('0192f3a4-1111-7000-8000-000000000001', 'Home'),
  ws('0192f3a4-2222-7000-8000-000000000002', 'Travel'),
  ws('7a10beef-3333-7000-8000-000000000003', '0192'),
];

describe('findWorkspace by id prefix', () => {
  it('finds the one workspace whose id starts with 4 or more characters, in any case, dashes included', () => {
    expect(findWorkspace(all, '0192f3a4-1').name).toBe('Home');
    expect(findWorkspace(all, '0192F3A4-2222').name).toBe('Travel');
    expect(findWorkspace(all, '7a10').name).toBe('0192');
  });
  it('prefers a name to a prefix, and refuses a prefix of several ids, listing them', () => {
    expect(findWorkspace(all, '0192').name).toBe('0192');
    expect(() => findWorkspace(all, '0192f3a4')).toThrow(
      /2 of your workspaces have an id starting with 0192f3a4/,
    );
    try {
      findWorkspace(all, '0192f3a4');
    } catch (error) {
      expect((error as { code: string; hint: string }).code).toBe('ambiguous_workspace');
      expect((error as { hint: string }).hint).toContain('Travel (0192f3a4-2222');
    }
  });
  it('takes no prefix shorter than 4 characters, nor one that is not hex', () => {
    expect(() => findWorkspace(all, '7a1')).toThrow(/No workspace with the id or name "7a1"/);
    expect(() => findWorkspace(all, 'zz10')).toThrow(/No workspace/);
  });
});
