/**
 * Durability: the append-only log, snapshots, the transaction record format and recovery (replay of
 * the log onto a keyspace). {@link dev.cuckoo.server.persist.Persistence} is the {@link
 * dev.cuckoo.server.persist.WriteLog} the write path appends to; {@link
 * dev.cuckoo.server.persist.WriteRefusals} is where the log, replication and CONFIG SET push what
 * the write path decides its refusals from. Reads and fills the {@code keyspace}; reaches the
 * command table only through {@link dev.cuckoo.server.persist.RecordApplier} and {@link
 * dev.cuckoo.server.persist.RecordRules}, which the table provides.
 */
package dev.cuckoo.server.persist;
