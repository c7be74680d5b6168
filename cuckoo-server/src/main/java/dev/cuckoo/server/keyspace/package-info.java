/**
 * The databases: keys mapped to filters with optional expiry times, the striped locks every command
 * takes, the per-command clock expiry is judged by, and the registry of WATCHed keys. Depends on no
 * other package of the server.
 */
package dev.cuckoo.server.keyspace;
