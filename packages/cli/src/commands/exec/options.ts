export interface WriteOptions {
  file?: string;
  yes?: boolean;
  dryRun?: boolean;
}
