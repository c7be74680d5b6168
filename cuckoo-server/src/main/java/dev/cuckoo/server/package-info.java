/**
 * A Redis-protocol server for cuckoo filters: {@link dev.cuckoo.server.CuckooServer} and its {@link
 * dev.cuckoo.server.ServerConfig}, the only public API.
 *
 * <p>The packages below it follow a request from the wire to the disk, each depending only on the
 * ones after it in this list: {@code network} (a connection's Netty handlers) → {@code command}
 * (the command table, one file per family, the dispatcher and the write path) → {@code session} (a
 * connection's state, the client registry, the master link as a client, the client pause) → {@code
 * replication} (the write stream to replicas and a replica's link to its master) → {@code persist}
 * (the append-only log, snapshots and recovery) → {@code keyspace} (databases, keys, expiry, locks,
 * watches) and {@code protocol} (the RESP decoder and the reply encoder); {@code pubsub} (channels
 * and subscribers) depends on {@code protocol} alone; {@code rdb} (the DUMP payload and RDB files),
 * {@code cluster} (the cluster bus and state), {@code acl} (users and rules) and {@code tls} (TLS
 * contexts) on {@code config} alone, {@code migrate} (MIGRATE's connections) on none. {@code
 * PackageArrowsTest} holds the arrows. A write goes one way: the dispatcher's write path locks its
 * keys, decides its refusal, runs the handler and hands what it changed to the log and the
 * replication stream. Under all of them, {@code config} holds the parameter table, which every
 * other package reads and which imports none of them. {@code CuckooServer} wires them; no package
 * below reads this one, so the packages have no cycle. {@code ServerConfig} is the settings a
 * server starts with, a view of the table's values.
 */
package dev.cuckoo.server;
