/**
 * TLS for every connection that leaves the machine, as Redis 6+ has it: the contexts built from the
 * {@code tls-*} parameters (OpenSSL through BoringSSL where its native library loads, else the
 * JDK's engine), rebuilt by CONFIG SET for connections to come, and the handlers and sockets that
 * clients, replication and the cluster bus get from them.
 */
package dev.cuckoo.server.tls;
