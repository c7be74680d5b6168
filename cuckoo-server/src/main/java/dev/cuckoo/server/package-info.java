/**
 * A Redis-protocol server for cuckoo filters: {@link dev.cuckoo.server.CuckooServer} and its {@link
 * dev.cuckoo.server.ServerConfig}, the only public API.
 *
 * <p>The packages below it follow a request from the wire to the disk, each depending only on the
 * ones after it in this list: {@code network} (a connection's Netty handlers) → {@code command}
 * (the command table, one file per family, the sessions and the write path) → {@code persist} (the
 * append-only log, snapshots and recovery) → {@code keyspace} (databases, keys, expiry, locks,
 * watches) and {@code protocol} (the RESP decoder and the reply encoder). {@code CuckooServer}
 * wires them; {@code ServerConfig} is the one class of this package the others read. A {@code
 * replication} package will sit beside {@code persist}, fed the same write stream as the log.
 */
package dev.cuckoo.server;
