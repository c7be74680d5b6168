/**
 * The client connections: a connection's {@code Session} (its reply stream, database, user, the
 * transaction being queued, watched keys, pub/sub subscriptions), the registry of live clients
 * ({@code ClientRegistry}), the replica's link to its master as a client ({@code MasterClient}) and
 * the pause that holds clients' commands back ({@code ClientPause}: CLIENT PAUSE, a failover). The
 * command layer runs commands in a session; what a session keeps of that layer's commands is opaque
 * to it ({@link dev.cuckoo.server.session.CommandRef}). The package reads the keyspace, the log's
 * transaction and retry types, the protocol, pub/sub and the ACL users, never the command layer.
 */
package dev.cuckoo.server.session;
