/**
 * A client connection's Netty handlers: protected mode, and the handler that runs decoded requests
 * in order and writes their replies once the write path reports the log records of the writes they
 * acknowledge written.
 */
package dev.cuckoo.server.network;
