import { cpus, totalmem } from 'node:os';
import { postgresVersion } from '@expense/test-kit';

export interface MachineInfo {
  nproc: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  postgres: string;
  date: string;
}

export async function machineInfo(): Promise<MachineInfo> {
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres: await postgresVersion().catch(() => 'unavailable'),
    date: new Date().toISOString(),
  };
}
