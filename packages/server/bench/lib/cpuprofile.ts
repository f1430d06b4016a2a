import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface CostLine {
  /** function (file:line) */
  frame: string;
  selfPct: number;
  totalPct: number;
}

function shortUrl(url: string): string {
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 'node_modules/'.length).replace(/^\.pnpm\/[^/]+\/node_modules\//, '');
  const p = url.indexOf('/packages/');
  return p >= 0 ? url.slice(p + 1) : url.replace(/^file:\/\//, '');
}

/** The top functions by self time and by inclusive time of the .cpuprofile files in a directory. */
export function summarizeProfiles(
  dir: string,
  top = 25,
): { self: CostLine[]; total: CostLine[]; sampledMs: number } {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const label = (n: ProfileNode) =>
      `${n.callFrame.functionName || '(anonymous)'} (${shortUrl(n.callFrame.url) || 'native'}:${n.callFrame.lineNumber + 1})`;
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0;
      all += dt;
      const node = byId.get(id);
      if (!node) return;
      self.set(label(node), (self.get(label(node)) ?? 0) + dt);
      const seen = new Set<string>();
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const l = label(byId.get(cur)!);
        if (seen.has(l)) continue;
        seen.add(l);
        total.set(l, (total.get(l) ?? 0) + dt);
      }
    });
  }
  const lines = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame]) => ({
        frame,
        selfPct: Math.round(((self.get(frame) ?? 0) / all) * 1000) / 10,
        totalPct: Math.round(((total.get(frame) ?? 0) / all) * 1000) / 10,
      }));
  return { self: lines(self), total: lines(total), sampledMs: Math.round(all / 1000) };
}
