import { runRecordCases } from './records.case.js';
import { startRedisCluster } from './helpers/redis-cluster.js';

// The same cases on a local 3-master Redis Cluster: every key of a conversation shares one hash
// tag, so nothing may fail with CROSSSLOT.
runRecordCases('Redis Cluster', startRedisCluster);
