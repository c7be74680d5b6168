/**
 * The databases: keys mapped to filters with optional expiry times, the striped locks every command
 * takes, a write's part in the keyspace ({@code KeyspaceWrite}: its locks, the filter it opens, the
 * memory in use), the per-command clock expiry is judged by, the registry of WATCHed keys, and the
 * heap guard that refuses writes near the heap's edge and ends the process on an OutOfMemoryError
 * (here so that every package may call it). Depends on no other package of the server.
 */
package dev.cuckoo.server.keyspace;
