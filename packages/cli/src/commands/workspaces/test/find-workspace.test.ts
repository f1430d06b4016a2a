import { describe, expect, it } from 'vitest';
import { findWorkspace } from '../command.js';

const ws = (workspaceId: string, name: string) => ({
  workspaceId,
  name,
  role: 'owner' as const,
  selected: false,
});

describe('findWorkspace', () => {
  it('finds a name case-insensitively when that is unambiguous', () => {
    expect(findWorkspace([ws('1', 'Household'), ws('2', 'Travel')], 'household').workspaceId).toBe('1');
  });
  it('prefers the exact name, and refuses a case-insensitive match of two', () => {
    expect(findWorkspace([ws('1', 'Home'), ws('2', 'home')], 'home').workspaceId).toBe('2');
    expect(() => findWorkspace([ws('1', 'Home'), ws('2', 'HOME')], 'home')).toThrow(/2 workspaces/);
  });
});
