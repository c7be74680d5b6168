/**
 * The commands: the declarative command table (one entry per command, one file per family), the
 * dispatcher that resolves a request against it, the sessions of client connections, and the write
 * path that decides a write under its key locks, records it and lets it be acknowledged.
 */
package dev.cuckoo.server.command;
