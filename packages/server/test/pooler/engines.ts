// Moved to @expense/test-kit (the engines list); kept until the pooler suites import it from there.
export { pooledEngines, pooledPostgres } from '@expense/test-kit';
