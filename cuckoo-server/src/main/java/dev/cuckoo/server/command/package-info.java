/**
 * The commands: the declarative command table (one entry per command; a family of commands in one
 * file with its entries, registered in {@link dev.cuckoo.server.command.Families}), the handlers
 * that parse a request, change data and reply, the dispatcher that resolves a request against the
 * table and takes its keys' locks, and the write path through which the dispatcher runs every
 * write: it decides the refusal under the write's locks, records what the handler changed to the
 * log and the replication stream, counts memory, touches WATCH and lets the network layer
 * acknowledge the write once its record is written.
 */
package dev.cuckoo.server.command;
