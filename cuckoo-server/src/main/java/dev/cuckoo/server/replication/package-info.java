/**
 * Replication between cuckoo-servers, in Redis's protocol: the master's write stream, backlog and
 * full-sync transfers, and the replica's link that loads a transfer and applies the stream. Fed by
 * the write path with the records the log gets; reads the {@code keyspace} and the {@code persist}
 * formats (snapshot, transaction record, replay).
 */
package dev.cuckoo.server.replication;
