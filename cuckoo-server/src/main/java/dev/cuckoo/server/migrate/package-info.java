/**
 * MIGRATE's network side: the source's connections to its targets with Redis's timed synchronous
 * I/O ({@link dev.cuckoo.server.migrate.TargetConnection}), the cache that keeps them as Redis
 * keeps its migrate sockets ({@link dev.cuckoo.server.migrate.TargetSockets}), and the exchange
 * itself — AUTH, SELECT, the pipelined RESTOREs and their replies read into Redis's outcomes
 * ({@link dev.cuckoo.server.migrate.Transfer}). A leaf: it knows nothing of keys or filters; the
 * command package serializes the keys and deletes the migrated ones through the write path.
 */
package dev.cuckoo.server.migrate;
