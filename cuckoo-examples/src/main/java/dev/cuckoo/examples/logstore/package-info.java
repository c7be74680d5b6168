/**
 * A log-structured key-value store whose in-memory index is a cuckoo table of key fingerprints and
 * record offsets, and a command that stores a file as content-addressed 1 KiB sectors.
 *
 * <p>Start with {@link dev.cuckoo.examples.logstore.LogStore}; the module README explains the
 * design.
 */
package dev.cuckoo.examples.logstore;
