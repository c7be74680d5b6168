/**
 * Durability: the append-only log, snapshots, the transaction record format and recovery (replay of
 * the log onto a keyspace). Reads and fills the {@code keyspace}; reaches the command table only
 * through {@link dev.cuckoo.server.persist.RecordApplier}, which the table implements.
 */
package dev.cuckoo.server.persist;
