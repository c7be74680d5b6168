/**
 * Replication between cuckoo-servers, in Redis's protocol: the master's write stream, backlog and
 * full-sync transfers, and the replica's link that loads a transfer and applies the stream. Fed by
 * the write path with the records the log gets and the messages published; pushes the server's
 * role, its link's state and its replicas' acknowledgements to the write path's refusals; reads the
 * {@code keyspace} and the {@code persist} formats (snapshot, transaction record, replay).
 */
package dev.cuckoo.server.replication;
