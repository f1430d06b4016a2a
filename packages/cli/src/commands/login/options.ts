export interface LoginOptions {
  email?: string;
  label?: string;
  insecureStorage?: boolean;
  force?: boolean;
}
