/**
 * A client connection's Netty handlers: protected mode, and the handler that runs decoded requests
 * in order and writes their replies once the log holds the writes they acknowledge.
 */
package dev.cuckoo.server.network;
